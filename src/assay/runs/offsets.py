"""Where each query's lines are in a TREC run file, so one query is read without the rest.

:func:`build_offsets` finds, in one vectorised pass over the bytes (numpy finds the
line ends and each line's first space, and compares each line's query id with the
line's before, no field parsed), the byte ranges of each query's lines: a
table of ``query``, ``offset``, ``length``, one row per stretch of consecutive
lines of one query (a grouped run has one per query; an interleaved run more).
:func:`query_lines` reads only those ranges and parses them as
:func:`~assay.runs.io.load_run` parses a file, so a query's ranked list is the
one the whole run gives. :func:`load_offsets` keeps the table in a cache file,
keyed by the run file's size and modification time and its sidecar's content
version: a stale or unreadable cache file is rebuilt, never trusted.

Only a plain TREC file is indexed (not gzip, not JSONL, no BOM, one space
between fields, no blank line); for any other file these functions return
``None`` and the caller reads the whole run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from assay.core._threads import halves
from assay.core.hashing import content_version
from assay.io.fileio import write_bytes_atomic
from assay.io.textio import BOM
from assay.runs._columns import parse_columns
from assay.runs.io import load_run
from assay.runs.markers import TREC_MARKER
from assay.runs.read import _columns_to_run
from assay.runs.sidecar import sidecar_path

#: Version of the cache file's layout (a different one is rebuilt).
LAYOUT = 1
#: Bytes of run file scanned for line ends at a time.
SCAN_BYTES = 1 << 24


def run_key(path: str | Path) -> dict[str, str]:
    """What a cached index of ``path`` must match: the run's size, mtime and sidecar version."""

    st = os.stat(path)
    side = sidecar_path(path)
    return {
        "layout": str(LAYOUT),
        "size": str(st.st_size),
        "mtime_ns": str(st.st_mtime_ns),
        "sidecar": content_version(side.read_bytes()) if side.is_file() else "",
    }


def _marker_skip(path: Path) -> int | None:
    """1 when the file starts with ``assay run``'s marker line, 0 when not; None: not plain."""
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if not head or head.startswith((BOM, b"\x1f\x8b", b"{")):
        return None
    return 1 if head.startswith(TREC_MARKER) and b"\n" in head else 0


def _whole_lines(path: Path, lo: int, hi: int) -> Iterator[tuple[int, np.ndarray, bool]]:
    """``(offset, bytes, last)`` blocks of about :data:`SCAN_BYTES` of whole lines of the
    bytes ``lo`` to ``hi`` (line starts) of ``path``; no line is split between two blocks,
    the last block may end without a newline (the end of the file)."""
    carry = b""
    at = lo
    with open(path, "rb") as fh:
        fh.seek(lo)
        while block := fh.read(min(SCAN_BYTES, hi - at - len(carry))):
            data = carry + block if carry else block
            cut = data.rfind(b"\n") + 1
            if cut:
                yield at, np.frombuffer(data, np.uint8, count=cut), False
                at += cut
            carry = data[cut:]
    if carry:
        yield at, np.frombuffer(carry, np.uint8), True


def _line_start(fh: Any, at: int) -> int:
    """The first line start at or after byte ``at`` of the open file ``fh``."""
    if at == 0:
        return 0
    fh.seek(at - 1)
    while chunk := fh.read(65536):
        if (k := chunk.find(b"\n")) >= 0:
            return fh.tell() - len(chunk) + k + 1
    return fh.tell()


#: Bytes of each line's start read at once for its query id (doubled while too few).
ID_BYTES = 8
#: Query ids longer than this are not indexed (the whole run is read).
MAX_ID_BYTES = 1024


def _lines(data: np.ndarray, last: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Start of each line of ``data``, its query id's length (to its first space) and the
    id's bytes (zero-padded to a multiple of 8, one row per line, viewed as uint64 words);
    None when a query id is empty or holds a tab or a line end, or a carriage return stands
    anywhere but before a newline (pyarrow's parse would end a line there)."""
    ends = np.flatnonzero(data == 10)
    if last:
        ends = np.append(ends, len(data))
    if (cr := np.flatnonzero(data[: len(data) - last] == 13)).size and not np.all(
        data[cr + 1] == 10
    ):
        return None
    starts = np.r_[0, ends[:-1] + 1]
    found = _short_ids(data, starts)
    return _long_ids(data, starts) if found is False else found


#: Each byte of a 64-bit word set to one value.
_BYTES = np.uint64(0x0101010101010101)


def _short_ids(data: np.ndarray, starts: np.ndarray) -> Any:
    """:func:`_lines`' lengths and words when every query id is under 8 bytes, each line's
    first 8 bytes one word (the first space found with the bit trick for a zero byte);
    False: an id of 8 bytes or more."""
    cut = int(np.searchsorted(starts, len(data) - 8, side="right"))
    tail = np.full(16, 10, np.uint8)  # the last lines' first 8 bytes, padded with line ends
    tail[: len(data) - max(len(data) - 8, 0)] = data[max(len(data) - 8, 0) :]
    words = np.concatenate(
        [_unaligned(data)[starts[:cut]], _unaligned(tail)[starts[cut:] - max(len(data) - 8, 0)]]
    )
    high = _BYTES * np.uint64(0x80)
    spaced = words ^ (_BYTES * np.uint64(32))
    zero = (spaced - _BYTES) & ~spaced & high  # the lowest set byte: the first space
    if not np.all(zero):
        return False
    lowest = zero & (~zero + np.uint64(1))
    mask = (lowest >> np.uint64(7)) - np.uint64(1)  # the bytes before the first space
    ids = words & mask
    low = (ids | (~mask & (_BYTES * np.uint64(64)))) - _BYTES * np.uint64(14)
    if np.any(mask == 0) or np.any(low & ~ids & high & mask):
        return None  # an empty id, or a byte under 14 (tab, line end) in one
    qlen = np.log2(lowest.astype(np.float64)).astype(np.int64) // 8
    return starts, qlen, ids.reshape(-1, 1)


def _unaligned(data: np.ndarray) -> np.ndarray:
    """The 8 bytes at each offset of ``data`` as one little-endian word (a view, no copy)."""
    return np.ndarray((len(data) - 7,), "<u8", data.data, 0, (1,))


def _long_ids(data: np.ndarray, starts: np.ndarray) -> Any:
    """:func:`_lines`' lengths and words for ids of up to :data:`MAX_ID_BYTES` bytes."""
    width = 4 * ID_BYTES
    while width <= MAX_ID_BYTES:
        padded = np.full(len(data) + width, 10, np.uint8)
        padded[: len(data)] = data
        heads = np.lib.stride_tricks.sliding_window_view(padded, width)[starts]
        space = heads == 32
        qlen = space.argmax(axis=1)
        if np.all(space[np.arange(len(starts)), qlen]):
            inside = np.arange(width) < qlen[:, None]
            if np.any(qlen == 0) or np.any((heads < 14) & inside):
                return None
            heads[~inside] = 0
            return starts, qlen, heads.view(np.uint64)
        width *= 4
    return None


def _new_queries(
    data: np.ndarray, found: tuple[np.ndarray, np.ndarray, np.ndarray], prev: bytes
) -> np.ndarray:
    """Whether each line's query id differs from the line's before (``prev``: the query id
    of the line before the first), comparing the id words of :func:`_lines` at once."""
    starts, qlen, words = found
    new = np.empty(len(starts), bool)
    new[0] = data[starts[0] : starts[0] + qlen[0]].tobytes() != prev
    new[1:] = np.any(words[1:] != words[:-1], axis=1)
    return new


def _ids(data: np.ndarray, starts: np.ndarray, qlen: np.ndarray) -> Any:
    """The query ids at ``starts`` (lengths ``qlen``): an Arrow string array gathered from
    the bytes at once; ``ArrowInvalid`` when one is not UTF-8."""
    import pyarrow as pa

    bounds = np.r_[0, np.cumsum(qlen)]
    where = np.repeat(starts - bounds[:-1], qlen) + np.arange(bounds[-1])
    ids = pa.StringArray.from_buffers(
        len(starts), pa.py_buffer(bounds.astype(np.int32)), pa.py_buffer(data[where].tobytes())
    )
    ids.validate(full=True)
    return ids


def _scan(path: Path, part: slice) -> tuple[list[Any], list[Any], bytes, bytes, int] | None:
    """The stretches of one query in the bytes ``part`` (moved to line starts) of ``path``:
    their starts, their query ids, the first and last line's query id and the end; None:
    a line that is not a plain TREC line."""
    import pyarrow as pa

    with open(path, "rb") as fh:
        lo, hi = _line_start(fh, part.start), _line_start(fh, part.stop)
    begins, ids, first, prev, end = [], [], None, b"", lo
    for at, data, last in _whole_lines(path, lo, hi):
        found = _lines(data, last)
        if found is None:
            return None
        starts, qlen, _ = found
        new = np.flatnonzero(_new_queries(data, found, prev))
        try:
            ids.append(_ids(data, starts[new], qlen[new]))
        except pa.ArrowInvalid:
            return None
        begins.append(starts[new] + at)
        if first is None:
            first = data[: qlen[0]].tobytes()
        prev = data[starts[-1] : starts[-1] + qlen[-1]].tobytes()
        end = at + len(data)
    return begins, ids, first or b"", prev, end


def build_offsets(path: str | Path) -> Any:
    """The byte ranges of each query's lines (a pyarrow table), or None: not a plain TREC
    file. The file's two halves are scanned on two threads in blocks of whole lines; no
    field is parsed (a query's lines are parsed when read, by :func:`query_lines`)."""
    import pyarrow as pa

    p = Path(path)
    skip = _marker_skip(p)
    if skip is None:
        return None
    with open(p, "rb") as fh:
        lo = _line_start(fh, 1) if skip else 0
    size = p.stat().st_size
    parts = halves(lambda part: _scan(p, slice(part.start + lo, part.stop + lo)), size - lo)
    if any(part is None for part in parts):
        return None
    begins, ids, end, last = [], [], lo, None
    for part_begins, part_ids, first, final, part_end in parts:  # type: ignore[misc]
        if part_begins and first == last:  # the query goes on from the part before
            part_begins[0], part_ids[0] = part_begins[0][1:], part_ids[0][1:]
        begins += part_begins
        ids += part_ids
        last, end = (final, part_end) if part_begins else (last, end)
    offset = np.concatenate(begins) if begins else np.zeros(0, np.int64)
    if not len(offset):
        return None
    return pa.table(
        {
            "query": pa.chunked_array(ids, pa.string()),
            "offset": pa.array(offset),
            "length": pa.array(np.diff(offset, append=end)),
        }
    )


def load_offsets(path: str | Path, cache: Path | None) -> Any:
    """The offsets table of ``path``: read from ``cache`` when its key matches, else built
    (and written there atomically when ``cache`` is given); None: not a plain TREC file."""
    import pyarrow as pa

    key = run_key(path)
    if cache is not None and cache.is_file():
        try:
            with pa.memory_map(str(cache)) as source:
                table = pa.ipc.open_file(source).read_all()
            meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
            if meta == {**key, "run": str(Path(path).resolve())}:
                return table
        except (OSError, pa.ArrowException, UnicodeDecodeError):
            pass  # unreadable: rebuilt below
    table = build_offsets(path)
    if table is None or cache is None:
        return table
    table = table.replace_schema_metadata({**key, "run": str(Path(path).resolve())})
    with contextlib.suppress(OSError):  # a folder that cannot be written: kept in memory only
        _write(cache, table)
    return table


def _write(cache: Path, table: Any) -> None:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    cache.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(cache, sink.getvalue().to_pybytes())


def query_bytes(path: str | Path, table: Any, query_id: str) -> bytes | None:
    """The lines of ``query_id`` (one per line, newline-ended), or None when a range read
    does not start with the query (the file changed under the index)."""
    import pyarrow.compute as pc

    rows = table.filter(pc.equal(table.column("query"), query_id))
    parts = []
    with open(path, "rb") as fh:
        for offset, length in zip(
            rows.column("offset").to_pylist(), rows.column("length").to_pylist(), strict=True
        ):
            fh.seek(offset)
            part = fh.read(length)
            if not part.startswith(query_id.encode() + b" "):
                return None
            parts.append(part if part.endswith(b"\n") else part + b"\n")
    return b"".join(parts)


def query_lines(path: str | Path, table: Any, query_id: str) -> list[tuple[str, float]] | None:
    """``query_id``'s ``(doc_id, score)`` in rank order, as ``load_run(path).to_dict()`` gives
    them, read from its lines only; None: the index does not fit the file (rebuild it)."""
    data = query_bytes(path, table, query_id)
    return None if data is None else _ranking(path, data, query_id)


def scan_bytes(path: str | Path, query_id: str) -> bytes | None:
    """The lines of ``query_id`` found by searching the whole file for them, without an
    index (one pass, a block of :data:`SCAN_BYTES` at a time); None: not a plain TREC file."""
    p = Path(path)
    skip = _marker_skip(p)
    if skip is None:
        return None
    needle = b"\n" + query_id.encode() + b" "
    parts: list[bytes] = []
    carry = b"" if skip else b"\n"  # a line is found after a newline: the first one too
    with open(p, "rb") as fh:
        while block := fh.read(SCAN_BYTES):
            data = carry + block
            at = k = 0
            while (k := data.find(needle, at)) >= 0 and (end := data.find(b"\n", k + 1)) >= 0:
                parts.append(data[k + 1 : end + 1])
                at = end
            carry = data[k:] if k >= 0 else data[max(at, len(data) - len(needle) + 1) :]
    if carry.startswith(needle):  # the file's last line, without a newline
        parts.append(carry[1:] + b"\n")
    return b"".join(parts)


def scan_lines(path: str | Path, query_id: str) -> list[tuple[str, float]] | None:
    """:func:`query_lines` of ``query_id`` by :func:`scan_bytes`, for a page asked before the
    run's index is ready; None: not a plain file, or no line found (ask the index)."""
    data = scan_bytes(path, query_id)
    return _ranking(path, data, query_id) if data else None


def _ranking(path: str | Path, data: bytes, query_id: str) -> list[tuple[str, float]]:
    """``query_id``'s ranked list from its lines ``data`` (as the whole run gives it)."""
    if not data:
        return []
    import pyarrow as pa

    try:
        columns = parse_columns(data)
    except pa.ArrowInvalid:  # a bad field in these lines: the whole run's reader names it
        return load_run(path).to_dict().get(query_id, [])
    run = _columns_to_run(Path(path), columns, None, None)
    return run.to_dict().get(query_id, [])
