"""Bytes to text for every input file: gzip, UTF-8 BOM, CRLF and undecodable bytes.

Judgment, corpus and answer-case readers go through this module so that a
byte-order mark, Windows line ends and gzip compression are handled the same
way in every format, and a byte that is not UTF-8 is reported with its 1-based
physical line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from assay.errors import ProblemLog
from assay.safejson import loads as safe_loads

_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | Path, log: ProblemLog | None = None) -> bytes | None:
    """Raw bytes of ``path`` without a BOM, decompressed when the file is gzip.

    A corrupt gzip file is logged and gives ``None`` when ``log`` is given;
    without a log the error propagates.
    """
    from assay.fileio import check_input

    check_input(path)
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            reason = str(exc) or "the compressed stream ends early: truncated"
            if log is None:
                from assay.errors import InputError, Problem

                problem = Problem(str(path), None, f"not a valid gzip file ({reason})")
                raise InputError([problem]) from None
            log.add(None, f"not a valid gzip file ({reason})", hint="re-compress or unzip it")
            return None
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    return data


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


def report_undecodable(data: bytes, log: ProblemLog, path: str | None = None) -> None:
    """Log every physical line of ``data`` that holds bytes that are not UTF-8."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            log.add(
                number,
                f"bytes that are not UTF-8 at column {exc.start + 1} "
                f"({raw[exc.start : exc.end]!r})",
                hint="save the file as UTF-8",
                path=path,
            )


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
    import json

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
        try:
            obj = safe_loads(line)
        except json.JSONDecodeError as exc:
            log.add(
                number,
                f"malformed JSON: {exc.msg} at column {exc.colno}",
                hint="each line must be one complete JSON object",
            )
            continue
        if not isinstance(obj, dict):
            log.add(
                number,
                f"a {what} must be a JSON object, got {type(obj).__name__}",
                hint="write one JSON object per line",
            )
            continue
        yield number, obj
