"""Read and write run files: TREC (``qid Q0 docid rank score tag``) and JSONL.

The TREC reader is vectorised: pyarrow reads the file itself (no copy of it in
Python) into compact Arrow arrays (:mod:`assay.runs._columns`); only when that
fails are the bytes normalised (BOM, CRLF, tabs and repeated spaces) and parsed
again, and query and document ids are kept dictionary-encoded (pandas categoricals), so a
ten-million-line run never becomes ten million Python strings. When the fast
parse fails, a line-by-line checker names every bad line (up to
:data:`assay.core.errors.MAX_PROBLEMS`).

JSONL runs hold one query per line::

    {"query_id": "q1", "results": ["d3", "d1"]}
    {"query_id": "q2", "results": [{"doc_id": "d7", "score": 2.5}]}

This module holds the entry points, :func:`load_run` and :func:`load_trec_eval_run`
(trec_eval's own reading rules); the TREC and JSONL readers live in
:mod:`assay.runs.read`, the writers (:func:`write_run`, :func:`run_bytes`) in
:mod:`assay.runs.write`, the formats and the marker of a run written by ``assay run``
in :mod:`assay.runs.markers`. Their public names are all importable from here.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.core.errors import InputError, Problem, UsageError, collecting
from assay.io.fileio import check_input
from assay.io.textio import BOM, UTF8_HINT, read_bytes, undecodable_message
from assay.runs._columns import parse_columns
from assay.runs.checks import RankingCheck
from assay.runs.markers import FORMATS as FORMATS
from assay.runs.markers import JSONL_MARKER as JSONL_MARKER
from assay.runs.markers import TREC_MARKER as TREC_MARKER
from assay.runs.markers import detect_format as detect_format
from assay.runs.markers import marker_lines as marker_lines
from assay.runs.models import Run
from assay.runs.read import _TREC_HINT, _columns_to_run, _load_jsonl, _load_trec
from assay.runs.write import run_bytes as run_bytes
from assay.runs.write import write_run as write_run


def load_run(path: str | Path, format: str | None = None, name: str | None = None) -> Run:
    """Load a run file (``format`` 'trec' or 'jsonl'; detected when ``None``).

    ``name`` defaults to the TREC tag of the first line, else the file stem.
    Raises :class:`InputError` naming each bad line (file, line, field, hint),
    :class:`UsageError` for an unknown format or a missing file.
    """

    p = Path(path)
    check_input(p)
    if not p.is_file():
        raise UsageError(f"run file not found: {p}")
    fmt = format or detect_format(p)
    if fmt not in FORMATS:
        raise UsageError(f"unknown run format {fmt!r}; use one of {', '.join(FORMATS)}")
    try:
        if fmt == "trec":
            return _load_trec(p, name)
        return _load_jsonl(p, name)
    except (OSError, EOFError) as exc:  # a truncated gzip stream, an unreadable file
        raise InputError([Problem(str(p), None, f"cannot be read: {exc}")]) from None
    except Exception as exc:
        if type(exc).__module__.startswith("pyarrow"):  # e.g. a 10 MB line
            raise InputError(
                [Problem(str(p), None, f"cannot be parsed: {exc}", hint=_TREC_HINT)]
            ) from None
        raise


# ------------------------------------------------------- as trec_eval reads it
def load_trec_eval_run(path: str | Path) -> Run:
    """A TREC run read as trec_eval 10 reads it (``assay trec-eval``).

    Unlike :func:`load_run`: lines starting with ``#`` (after blanks) and
    blank lines are skipped, the rank field is not read (any token will do),
    and the run is named by the tag of the last line read, which trec_eval
    prints as ``runid``. Fields after the tag are ignored, as in
    :func:`load_run`. Scores and repeated documents are checked as there:
    raises :class:`InputError` naming each bad line.
    """
    from dataclasses import replace

    p = Path(path)
    check_input(p)
    if not p.is_file():
        raise UsageError(f"run file not found: {p}")
    try:
        run: Run | None = load_run(p, format="trec")
    except InputError:  # a comment, a blank line, a rank that is not a number...
        run = None
    if run is not None and not _comment_queries(run):
        return replace(run, name=_last_tag(p) or run.name)
    data = read_bytes(p)  # BOM dropped, gzip opened
    kept, tag = _trec_eval_lines(p, data)
    del data
    return _columns_to_run(p, parse_columns(b"\n".join(kept)), None, tag)


def _comment_queries(run: Run) -> bool:
    """True when a query id starts with ``#``: a comment line that happened to have 6 fields."""
    import pandas as pd

    column = run.frame["query_id"]
    ids = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    return bool(pd.Index(ids).astype("string").str.startswith("#").any())


def _last_tag(p: Path) -> str | None:
    """The tag (6th field) of the last line that is neither blank nor a comment."""
    with open(p, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    if gzipped:
        return _tag_of_last(read_bytes(p).split(b"\n"))
    size, span = p.stat().st_size, 1 << 16
    with open(p, "rb") as fh:
        while True:  # read the end of the file, more of it while it holds no data line
            start = max(0, size - span)
            fh.seek(start)
            lines = fh.read().removeprefix(BOM).split(b"\n")
            found = _tag_of_last(lines[1:] if start else lines)
            if found is not None or start == 0:
                return found or None
            span *= 8


def _tag_of_last(lines: list[bytes]) -> str | None:
    """The tag of the last data line of ``lines`` ("" when it has no 6th field)."""
    for line in reversed(lines):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else ""
    return None


#: a score pyarrow reads as a double (trec_eval's atof reads more, as 0)
_SCORE = re.compile(rb"[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|(?i:nan|inf|infinity))")


def _trec_eval_lines(p: Path, data: bytes) -> tuple[list[bytes], str | None]:
    """The lines trec_eval reads, as 6 clean fields (rank 0), and the last line's tag.

    Names (with its line in the file) every line with fewer than 6 fields, not
    UTF-8, whose score is not a finite number or whose document repeats.
    """
    out: list[bytes] = []
    tag: bytes | None = None
    check = RankingCheck()
    with collecting(p) as log:
        for lineno, raw in enumerate(data.split(b"\n"), start=1):
            fields = raw.split()
            if not fields or fields[0].startswith(b"#"):
                continue
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                log.add(lineno, undecodable_message(raw, exc), hint=UTF8_HINT)
                continue
            if len(fields) < 6:
                log.add(lineno, f"expected 6 fields, found {len(fields)}", hint=_TREC_HINT)
                continue
            qid, doc, score, tag = fields[0], fields[2], fields[4], fields[5]
            if not _SCORE.fullmatch(score):
                message = f"score {score.decode()!r} is not a number"
                log.add(lineno, message, field="score", hint=_TREC_HINT)
                continue
            fault = check.add(qid.decode(), doc.decode(), float(score), lineno)
            if fault is not None:
                log.add(lineno, fault.message, field=fault.field, hint=fault.hint)
                continue
            out.append(b" ".join((qid, b"Q0", doc, b"0", score, tag)))
        if not out and not log:
            log.add(None, "no results: every line is blank or a comment", hint=_TREC_HINT)
    return out, None if tag is None else tag.decode()
