"""Read UBI ``ubi_queries`` / ``ubi_events`` logs in the three layouts found in practice.

* ``bulk``: OpenSearch bulk NDJSON, an action line (``{"index": {"_index":
  "ubi_events"}}``) before every document;
* ``jsonl``: one document per line; a file whose name holds ``queries`` or
  ``events`` is that index, otherwise each record is classified by its keys
  (``action_name`` makes an event, ``user_query`` a query);
* ``tsv``: the older export, ``index<TAB>json`` on every line.

A ``.zip`` archive is read member by member without unpacking it; gzip is
looked through. Every problem names the file (``archive.zip:member`` inside a
zip), the 1-based line and the field, and all of them are raised together as
one :class:`~assay.core.errors.InputError`.

Files and members are decompressed as streams, a block at a time, with three
bounds checked while reading (so a small archive that unpacks to gigabytes
costs at most the bound): ``max_bytes`` uncompressed bytes over all files
(:data:`DEFAULT_MAX_BYTES`, ``--max-bytes``), :data:`MAX_LINE_BYTES` per line,
and at most :data:`~assay.core.errors.MAX_PROBLEMS` blank lines (every layout
refuses them). A bad CRC, a corrupt stream or an encrypted zip member is a
problem naming the member (exit 2).
"""

from __future__ import annotations

import gzip
import json
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from assay.behavior.models import UbiEvent, UbiLog, UbiQuery
from assay.core.bounds import at_least
from assay.core.errors import MAX_PROBLEMS, InputError, Problem, ProblemLog, UsageError, collecting
from assay.io.fileio import check_input
from assay.io.textio import decode, drop_bom, json_lines, parse_json, split_lines

#: Uncompressed bytes read from all files of one call, unless ``max_bytes`` says otherwise.
DEFAULT_MAX_BYTES = 1 << 30
#: The longest line accepted, in bytes (a UBI record is a few kilobytes).
MAX_LINE_BYTES = 4 << 20
_BLOCK = 1 << 20

LAYOUTS = ("bulk", "jsonl", "tsv")
_TSV = re.compile(r"^[A-Za-z_][\w.\-]*\t")
_ACTIONS = ("index", "create")
_HIT_KEYS = ("query_response_hit_ids", "query_response_object_ids")


def read_ubi(
    paths: str | Path | Sequence[str | Path],
    layout: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> UbiLog:
    """Read and check UBI files (bulk NDJSON, JSONL, ``index<TAB>json``, or a zip of them).

    ``layout`` forces one of :data:`LAYOUTS` for every file (default: detect from
    the first line). ``max_bytes`` bounds the uncompressed bytes read from all
    files (see the module docstring). Raises :class:`InputError` listing every
    problem found.
    """

    at_least("max_bytes", max_bytes)
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    if layout is not None and layout not in LAYOUTS:
        raise UsageError(f"--layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    if not items:
        raise InputError([Problem("(no file)", None, "no UBI file given", hint="name a file")])
    queries: list[UbiQuery] = []
    events: list[UbiEvent] = []
    layouts: dict[str, str] = {}
    budget = [max_bytes, max_bytes]
    with collecting(items[0]) as log:
        for item in items:
            for name, text in _texts(Path(item), log, budget):
                view = log.for_path(name)
                found = layout or detect_layout(text)
                layouts[name] = found
                _parse(text, name, found, view, queries, events)
        _check_duplicates(queries, log)
    return UbiLog(tuple(queries), tuple(events), tuple(str(p) for p in items), layouts)


def detect_layout(text: str) -> str:
    """``tsv``, ``bulk`` or ``jsonl``, from the first non-blank line of ``text``."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    if _TSV.match(first):
        return "tsv"
    try:
        obj = parse_json(first)
    except json.JSONDecodeError:
        return "jsonl"
    return "bulk" if _action(obj) is not None else "jsonl"


def _texts(path: Path, log: ProblemLog, budget: list[int]) -> Iterator[tuple[str, str]]:

    if not path.is_file():
        log.add(None, "file not found", path=str(path), hint="check the path")
        return
    check_input(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if not members:
                log.add(None, "empty zip archive", path=str(path), hint="zip the UBI export")
            for member in members:
                name = f"{path}:{member.filename}"
                view = log.for_path(name)
                if member.flag_bits & 0x1:
                    view.add(None, "encrypted zip member", hint="zip the export without a password")
                    continue
                data = _bounded(lambda m=member: archive.open(m), name, view, budget)
                text = None if data is None else decode(data, view, name)
                if text is not None:
                    yield name, text
        return
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    opener = partial(gzip.open, path, "rb") if gzipped else partial(open, path, "rb")
    view = log.for_path(str(path))
    data = _bounded(opener, str(path), view, budget)
    text = None if data is None else decode(data, view, str(path))
    if text is not None:
        yield str(path), text


def _bounded(opener: Any, name: str, log: Any, budget: list[int]) -> bytes | None:
    """The bytes of one stream, read a block at a time within the bounds; None on a problem.

    ``budget`` is ``[bytes still allowed over all files, the limit]``.
    """
    out = bytearray()
    line_start = 0  # offset in ``out`` where the current line began
    lines = 1
    blank = 0
    try:
        with opener() as stream:
            while block := stream.read(_BLOCK):
                if len(block) > budget[0]:
                    log.add(
                        None,
                        f"uncompressed data exceeds the limit of {budget[1]} bytes",
                        hint="raise --max-bytes, or split the log",
                    )
                    return None
                budget[0] -= len(block)
                base = len(out)
                out += block
                blank += block.count(b"\n\n") + (
                    1 if base and out[base - 1 : base + 1] == b"\n\n" else 0
                )
                if blank > MAX_PROBLEMS:
                    log.add(None, f"more than {MAX_PROBLEMS} blank lines", hint="remove them")
                    return None
                first = out.find(b"\n", base)
                if first >= 0:
                    last = out.rfind(b"\n", base)
                    longest = max(first - line_start, _longest(out, first + 1, last))
                    lines += out.count(b"\n", base)
                    line_start = last + 1
                    if longest > MAX_LINE_BYTES:
                        log.add(None, _LONG, hint="one record per line")
                        return None
                if len(out) - line_start > MAX_LINE_BYTES:
                    log.add(lines, _LONG, hint="one record per line")
                    return None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError) as exc:
        reason = str(exc) or type(exc).__name__
        log.add(None, f"cannot be decompressed: {reason}", hint="re-create the archive")
        return None
    except NotImplementedError as exc:
        log.add(None, f"unsupported compression: {exc}", hint="use deflate or gzip")
        return None
    return drop_bom(bytes(out))


def _longest(data: bytearray, start: int, stop: int) -> int:
    """The longest line wholly inside ``data[start:stop]`` (cheap: only when long lines exist)."""
    if stop - start <= MAX_LINE_BYTES:
        return 0
    longest, prev = 0, start - 1
    while (nxt := data.find(b"\n", prev + 1, stop + 1)) >= 0:
        longest = max(longest, nxt - prev - 1)
        prev = nxt
    return longest


_LONG = f"a line longer than {MAX_LINE_BYTES} bytes"


def _action(obj: Any) -> tuple[str, str | None] | None:
    """``(action, index)`` of a bulk action line, ``None`` for a document."""
    if isinstance(obj, dict) and len(obj) == 1:
        ((key, value),) = obj.items()
        if key in (*_ACTIONS, "delete", "update") and isinstance(value, dict):
            index = value.get("_index")
            return key, index if isinstance(index, str) else None
    return None


def _kind_of_index(index: str | None) -> str | None:
    if index is None:
        return None
    low = index.lower()
    if "quer" in low:
        return "query"
    if "event" in low:
        return "event"
    return None


def _parse(
    text: str,
    name: str,
    layout: str,
    log: Any,
    queries: list[UbiQuery],
    events: list[UbiEvent],
) -> None:
    records: Iterable[tuple[int, str | None, dict]]
    if layout == "bulk":
        records = _bulk(text, log)
    elif layout == "tsv":
        records = _tsv(text, log)
    else:
        hint = _kind_of_index(Path(name.rsplit(":", 1)[-1]).name)
        records = ((n, hint, obj) for n, obj in json_lines(text, log, what="UBI record"))
    for number, kind, obj in records:
        kind = kind or (
            "event" if "action_name" in obj else "query" if "user_query" in obj else None
        )
        if kind == "query":
            rec = _query(obj, name, number, log)
            if rec is not None:
                queries.append(rec)
        elif kind == "event":
            ev = _event(obj, name, number, log)
            if ev is not None:
                events.append(ev)
        else:
            log.add(
                number,
                "cannot tell whether this is a ubi_queries or a ubi_events record",
                hint="an event has 'action_name', a query has 'user_query'",
            )


def _bulk(text: str, log: Any) -> Iterator[tuple[int, str | None, dict]]:
    pending: tuple[int, str | None] | None = None
    for number, obj in json_lines(text, log, what="bulk line"):
        action = _action(obj)
        if action is not None:
            if pending is not None:
                log.add(pending[0], "action line without a document after it", hint="remove it")
            pending = None if action[0] in ("delete", "update") else (number, action[1])
            if pending is not None and _kind_of_index(action[1]) is None:
                log.add(
                    number,
                    f"unknown index {action[1]!r}",
                    field="_index",
                    hint="a UBI bulk file indexes into ubi_queries or ubi_events",
                )
                pending = (number, "skip")
            continue
        if pending is None:
            log.add(
                number,
                "document without an action line before it",
                hint='put {"index": {"_index": "ubi_events"}} on the line above',
            )
            continue
        index = pending[1]
        pending = None
        if index != "skip":
            yield number, _kind_of_index(index), obj
    if pending is not None:
        log.add(pending[0], "action line without a document after it", hint="remove it")


def _tsv(text: str, log: Any) -> Iterator[tuple[int, str | None, dict]]:

    kinds: list[str | None] = []
    parts: list[str] = []
    for number, line in enumerate(split_lines(text), start=1):
        index, tab, body = line.partition("\t")
        kind = _kind_of_index(index) if tab else None
        if line.strip() and not tab:
            log.add(number, "no TAB after the index name", hint="write index<TAB>json")
            kind, body = "skip", "{}"
        elif tab and kind is None:
            log.add(
                number,
                f"unknown index {index!r}",
                field="index",
                hint="the first column is ubi_queries or ubi_events",
            )
            kind, body = "skip", "{}"
        kinds.append(kind)
        parts.append(body if tab or kind == "skip" else line)
    for number, obj in json_lines("\n".join(parts), log, what="UBI record"):
        if kinds[number - 1] != "skip":
            yield number, kinds[number - 1], obj


def _string(obj: dict, key: str, line: int, log: Any, *, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            log.add(line, f"missing key {key!r}", field=key, hint=f"every record needs {key}")
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        log.add(
            line,
            f"{key} must be a string, found {type(value).__name__}",
            field=key,
            hint="write it as a JSON string",
        )
        return None
    return value


def _query(obj: dict, name: str, line: int, log: Any) -> UbiQuery | None:
    qid = _string(obj, "query_id", line, log, required=True)
    text = _string(obj, "user_query", line, log, required=True)
    if qid is not None and not qid.strip():
        log.add(line, "empty query_id", field="query_id", hint="every search needs its id")
        qid = None
    hits: tuple[str, ...] | None = None
    key = next((k for k in _HIT_KEYS if k in obj), None)
    if key is not None and obj[key] is not None:
        value = obj[key]
        ok = isinstance(value, list) and all(isinstance(h, str | int) for h in value)
        if not ok or any(isinstance(h, bool) for h in value):
            log.add(line, "must be a list of doc ids", field=key, hint='write ["id-1", "id-2"]')
            return None
        hits = tuple(str(h) for h in value)
        if len(set(hits)) != len(hits):
            log.add(line, "a doc id is listed twice", field=key, hint="list every hit once")
            return None
    if qid is None or text is None:
        return None
    return UbiQuery(
        query_id=qid,
        user_query=text,
        path=name,
        line=line,
        application=_string(obj, "application", line, log)
        or _string(_mapping(obj, "query_attributes", line, log, ""), "application", line, log),
        client_id=_string(obj, "client_id", line, log),
        query_response_id=_string(obj, "query_response_id", line, log),
        timestamp=_string(obj, "timestamp", line, log),
        hit_ids=hits,
    )


def _mapping(obj: Any, key: str, line: int, log: Any, where: str) -> dict:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        log.add(line, f"must be an object, found {type(value).__name__}", field=where + key)
        return {}
    return value


def _event(obj: dict, name: str, line: int, log: Any) -> UbiEvent | None:
    action = _string(obj, "action_name", line, log, required=True)
    attrs = _mapping(obj, "event_attributes", line, log, "")
    target = _mapping(attrs, "object", line, log, "event_attributes.")
    where = _mapping(attrs, "position", line, log, "event_attributes.")
    ordinal = where.get("ordinal")
    if ordinal is not None and (
        not isinstance(ordinal, int) or isinstance(ordinal, bool) or ordinal < 0
    ):
        log.add(
            line,
            f"position ordinal {ordinal!r} is not a whole number >= 0",
            field="event_attributes.position.ordinal",
            hint="log the position of the object in the result list",
        )
        return None
    if not action or not action.strip():
        if action is not None:
            log.add(line, "empty action_name", field="action_name", hint="name the action")
        return None
    return UbiEvent(
        action_name=action,
        path=name,
        line=line,
        query_id=_string(obj, "query_id", line, log),
        application=_string(obj, "application", line, log),
        client_id=_string(obj, "client_id", line, log),
        session_id=_string(obj, "session_id", line, log) or _string(attrs, "session_id", line, log),
        timestamp=_string(obj, "timestamp", line, log),
        user_query=_string(obj, "user_query", line, log),
        object_id=_string(target, "object_id", line, log),
        object_id_field=_string(target, "object_id_field", line, log),
        position=ordinal,
    )


def _check_duplicates(queries: list[UbiQuery], log: ProblemLog) -> None:
    """The same search response logged twice (same query_id and query_response_id)."""
    seen: dict[tuple[str, str], UbiQuery] = {}
    for rec in queries:
        if rec.query_response_id is None:
            continue
        key = (rec.query_id, rec.query_response_id)
        if key in seen:
            first = seen[key]
            log.add(
                rec.line,
                f"duplicate response {rec.query_response_id!r} of query_id {rec.query_id!r} "
                f"(first seen at {first.path}:{first.line})",
                field="query_response_id",
                hint="keep one record per search response",
                path=rec.path,
            )
        else:
            seen[key] = rec
