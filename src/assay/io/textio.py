"""Bytes to text for every input file: gzip, UTF-8 BOM, CRLF and undecodable bytes.

Judgment, corpus, run and answer-case readers go through this module so that a
byte-order mark, Windows line ends and gzip compression are handled the same
way in every format, and a byte that is not UTF-8 is reported with its 1-based
physical line. Every JSON text read from a file (JSONL lines, sidecars, result
files, cache entries) is parsed by :func:`parse_json` or :func:`parse_json_at`,
the one place to bound what a JSON document may hold.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.core.errors import InputError, Problem, ProblemLog
from assay.io.fileio import check_input
from assay.io.safejson import JSONError, loads

#: The UTF-8 byte-order mark, dropped from the start of every file read.
BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | Path, log: ProblemLog | None = None) -> bytes | None:
    """Raw bytes of ``path`` without a BOM, decompressed when the file is gzip.

    A corrupt gzip file is logged and gives ``None`` when ``log`` is given;
    without a log the error propagates.
    """

    check_input(path)
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            reason = str(exc) or "the compressed stream ends early: truncated"
            if log is None:
                problem = Problem(str(path), None, f"not a valid gzip file ({reason})")
                raise InputError([problem]) from None
            log.add(None, f"not a valid gzip file ({reason})", hint="re-compress or unzip it")
            return None
    return drop_bom(data)


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` as :func:`read_bytes` gives them, reading no more.

    A gzip file is decompressed only as far as needed; a stream that cannot be
    decompressed gives the bytes decompressed so far (the full reader reports it).
    """

    check_input(path)
    with open(path, "rb") as fh:
        data = fh.read(size + len(BOM))
        if data[:2] == b"\x1f\x8b":
            fh.seek(0)
            data = b""
            try:
                with gzip.GzipFile(fileobj=fh) as gz:
                    data = gz.read(size + len(BOM))
            except (OSError, EOFError, zlib.error):
                pass
    return drop_bom(data)[:size]


def drop_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte-order mark (bytes read other than from a path)."""
    return data[len(BOM) :] if data.startswith(BOM) else data


def decode(data: bytes, log: ProblemLog, path: str | None = None) -> str | None:
    """Decode UTF-8 bytes; report every line holding undecodable bytes.

    Returns ``None`` (after recording problems) when the bytes are not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    report_undecodable(data, log, path)
    return None


#: The hint of every problem about bytes that are not UTF-8.
UTF8_HINT = "save the file as UTF-8"


def undecodable_message(raw: bytes, exc: UnicodeDecodeError) -> str:
    """The message for a line ``raw`` whose bytes are not UTF-8 (``exc`` from decoding it)."""
    return f"bytes that are not UTF-8 at column {exc.start + 1} ({raw[exc.start : exc.end]!r})"


def report_undecodable(data: bytes, log: ProblemLog, path: str | None = None) -> None:
    """Log every physical line of ``data`` that holds bytes that are not UTF-8."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            log.add(number, undecodable_message(raw, exc), hint=UTF8_HINT, path=path)


def parse_json(text: str | bytes) -> Any:
    """Parse one JSON document read from a file; raises :class:`json.JSONDecodeError`.

    Parsing is bounded (nesting depth, number sizes, lone surrogates): see
    :mod:`assay.io.safejson`.
    """

    return loads(text)


def parse_json_at(text: str, pos: int) -> tuple[Any, int]:
    """Parse the JSON value starting at ``pos`` of ``text``: ``(value, end position)``.

    For readers that walk a larger document (a JSON list of queries) value by value.
    """
    import json

    try:
        _, end = json.JSONDecoder().raw_decode(text, pos)
    except RecursionError:
        line = text.count("\n", 0, pos) + 1
        raise JSONError("nested too deeply", line, pos - text.rfind("\n", 0, pos)) from None
    return loads(text[pos:end]), end


def json_object(
    line: str, number: int, log: ProblemLog, *, what: str, path: str | None = None
) -> dict | None:
    """The JSON object on one line; ``None`` (problem logged) when malformed or not an object."""
    import json

    try:
        obj = parse_json(line)
    except json.JSONDecodeError as exc:
        log.add(
            number,
            f"malformed JSON: {exc.msg} at column {exc.colno}",
            hint="each line must be one complete JSON object",
            path=path,
        )
        return None
    if not isinstance(obj, dict):
        log.add(
            number,
            f"a {what} must be a JSON object, got {type(obj).__name__}",
            hint="write one JSON object per line",
            path=path,
        )
        return None
    return obj


def split_lines(text: str) -> list[str]:
    """Physical lines of ``text`` (``\\n`` separated, trailing ``\\r`` dropped).

    Unlike :meth:`str.splitlines`, only ``\\n`` ends a line, so line numbers
    match what an editor shows even when a value holds other separators.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_text(path: str | Path, log: ProblemLog) -> str | None:
    """Read and decode ``path``; ``None`` when it is not UTF-8 or bad gzip (problems logged)."""
    data = read_bytes(path, log)
    return None if data is None else decode(data, log, str(path))


def json_lines(
    text: str, log: ProblemLog, *, what: str, plural: str | None = None
) -> Iterator[tuple[int, dict]]:
    """The JSON objects of a JSONL text with their 1-based line numbers.

    An empty file, blank lines, malformed JSON and lines that are not objects
    are logged (the line is skipped) so that every reader reports them alike.
    ``what`` names one record in messages (``"query"``, ``"case"``).
    """
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        log.add(
            None, f"empty file: no {plural or what + 's'}", hint="write one JSON object per line"
        )
        return
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            log.add(number, "blank line", hint=f"remove it: every line must hold one {what}")
            continue
        obj = json_object(line, number, log, what=what)
        if obj is not None:
            yield number, obj


#: One CSV row: its 1-based physical line and its cells.
CsvRow = tuple[int, list[str]]


def csv_table(
    text: str,
    log: ProblemLog,
    *,
    delimiter: str = ",",
    skip_initial_space: bool = False,
    blank_hint: str | None = None,
) -> tuple[CsvRow | None, list[CsvRow]]:
    """The header (line, stripped names) and data rows (line, cells) of a CSV text.

    Blank lines before the header are skipped; after it they are skipped too,
    or logged with ``blank_hint`` when one is given. Empty or repeated header
    names, rows whose field count is not the header's and malformed CSV are
    logged, and the row is left out. The header is ``None`` for a text without
    one (nothing logged: the caller says what it expected).
    """
    import csv
    import io

    csv.field_size_limit(max(csv.field_size_limit(), 1 << 30))  # fields of any size
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=delimiter,
        skipinitialspace=skip_initial_space,
        strict=True,
    )
    header: CsvRow | None = None
    rows: list[CsvRow] = []
    last = 0
    try:
        for cells in reader:
            start, last = last + 1, reader.line_num
            if not any(c.strip() for c in cells):
                if header is not None and blank_hint is not None:
                    log.add(start, "blank line", hint=blank_hint)
                continue
            if header is None:
                header = (start, [c.strip() for c in cells])
                _check_header(header, log)
            elif len(cells) != len(header[1]):
                log.add(
                    start,
                    f"expected {len(header[1])} fields, found {len(cells)}",
                    hint="quote values that contain the delimiter and check for missing cells",
                )
            else:
                rows.append((start, cells))
    except csv.Error as exc:
        reason = str(exc)
        if "end of data" in reason:  # the csv module's words for a quote never closed
            reason = "a quoted value is not closed before the end of the file"
        log.add(
            last + 1,
            f"malformed CSV in the record starting here: {reason}",
            hint="close every quoted value and double quotes inside one",
        )
    return header, rows


def _check_header(header: CsvRow, log: ProblemLog) -> None:
    line, names = header
    seen: set[str] = set()
    for i, name in enumerate(names, start=1):
        if not name:
            log.add(line, f"column {i} of the header has no name", hint="name every column")
        elif name in seen:
            log.add(
                line,
                f"column {name!r} appears twice in the header",
                field=name,
                hint="rename or remove one of them",
            )
        seen.add(name)
