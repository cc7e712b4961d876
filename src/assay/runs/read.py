"""The run readers behind :func:`assay.runs.io.load_run`: TREC and JSONL.

The TREC reader is vectorised: pyarrow reads the file itself (no copy of it in
Python) into compact Arrow arrays (:mod:`assay.runs._columns`); only when that
fails are the bytes normalised (BOM, CRLF, tabs and repeated spaces) and parsed
again, and a line-by-line checker names every bad line. The JSONL reader
checks each query's line with the same ranking rules (:mod:`assay.runs.checks`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from assay.core.errors import InputError, Problem, collecting
from assay.core.pairs import arrow_column
from assay.core.repeats import repeated_ids
from assay.io.textio import BOM, UTF8_HINT, json_lines, read_bytes, read_text, undecodable_message
from assay.runs._columns import Columns, categorical, parse_columns
from assay.runs.checks import RankingCheck, duplicate_doc, score_fault
from assay.runs.markers import JSONL_MARKER, TREC_MARKER
from assay.runs.models import Run

_TREC_HINT = "each line must be 'query_id Q0 doc_id rank score tag' (6 fields)"


# ----------------------------------------------------------------------- TREC
def _normalise(data: bytes) -> bytes:
    """Turn any run of blanks (tabs, repeated spaces) into one space; trim lines."""
    if b"\t" in data:
        data = data.replace(b"\t", b" ")
    if b"\x0b" in data or b"\x0c" in data:
        data = data.replace(b"\x0b", b" ").replace(b"\x0c", b" ")
    if b"  " in data:
        data = re.sub(rb" {2,}", b" ", data)
    if b"\n " in data or b" \n" in data or data.startswith(b" ") or data.endswith(b" "):
        data = re.sub(rb"(?m)^ | $", b"", data)
    return data.rstrip(b"\n")


def _load_trec(p: Path, name: str | None) -> Run:
    import pyarrow as pa

    with open(p, "rb") as fh:
        head = fh.read(65536)
    skip = 1 if head.startswith(TREC_MARKER) and b"\n" in head else 0
    if skip:
        head = head[head.index(b"\n") + 1 :]
    if not head.startswith((BOM, b"\x1f\x8b")) and re.search(rb"\S", head):
        # Fastest path: pyarrow reads the file itself, block by block, so the
        # whole file is never held in memory. Any failure (or an unusual file)
        # falls back to the byte-level paths below, which decide what is wrong.
        try:
            columns = parse_columns(str(p), skip)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            columns = None
        if columns is not None and len(columns[0]):
            return _columns_to_run(p, columns, name, _first_tag(head), skip)
    data = read_bytes(p)  # BOM dropped, gzip opened
    skip = 1 if data.startswith(TREC_MARKER) else 0
    if skip:  # the marker line is not a result; line numbers below count it
        data = data[data.index(b"\n") + 1 :] if b"\n" in data else b""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if re.search(rb"\S", data[:4096]) is None and re.search(rb"\S", data) is None:
        raise InputError([Problem(str(p), None, "empty file: no results", hint=_TREC_HINT)])
    try:
        # Fast path on the bytes as they are (single spaces, the usual case); only
        # when that fails are blanks normalised (tabs, repeated spaces), then retried.
        try:
            columns = parse_columns(data)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            data = _normalise(data)
            columns = parse_columns(data)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        # Slow path: names bad lines and raises, or returns the lines cut to
        # 6 fields when the only deviation is trailing text after the tag
        # (trec_eval ignores it; its own test/results.trunc has some).
        data = _check_trec_lines(p, data, skip)
        columns = parse_columns(data)
    tag = _first_tag(data)
    del data  # the parsed columns no longer need the raw bytes: free them early
    return _columns_to_run(p, columns, name, tag, skip)


def _first_tag(data: bytes) -> str | None:
    """The run tag (6th field) of the first line, if any."""
    first = data[: data.find(b"\n")] if b"\n" in data[:65536] else data[:65536]
    fields = first.split()
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else None


def _columns_to_run(
    p: Path,
    columns: Columns,
    name: str | None,
    tag: str | None,
    skip: int = 0,
    lines: np.ndarray | None = None,
) -> Run:
    """``skip`` lines (the marker of :data:`TREC_MARKER`, or the rows of the blocks before
    this one) came before the first row; ``lines``, when given, is each row's line instead."""
    qcodes, qcats, doc_ids, scores = columns
    docs = arrow_column(doc_ids)  # the pandas array's own Arrow column (hashes known)
    line = (lambda row: int(lines[row])) if lines is not None else (lambda row: row + 1 + skip)
    with collecting(p) as log:
        for row in np.flatnonzero(~np.isfinite(scores))[:20]:
            doc = docs[int(row)].as_py()
            fault = score_fault(doc, float(scores[row]))
            assert fault is not None  # a non-finite score always breaks the rule
            log.add(line(int(row)), fault.message, field=fault.field, hint=fault.hint)
    _check_duplicates(p, qcodes, qcats, docs, line)
    run_name = name or tag or p.stem
    metadata: dict[str, Any] = {"format": "trec", "warnings": []}
    if skip:
        metadata[JSONL_MARKER] = True
    return _make_run(categorical(qcodes, qcats), doc_ids, scores, run_name, p, True, metadata)


def _check_duplicates(p: Path, qcodes: np.ndarray, qcats: Any, docs: Any, line: Any) -> None:
    """Raise naming every repeated (query, doc) pair with the line of its first use
    (``line``: a row's line in the file)."""
    rows, firsts = repeated_ids(qcodes, docs)
    if not len(rows):
        return
    with collecting(p) as log:
        for row, first in zip(rows.tolist(), firsts.tolist(), strict=True):
            doc, query = docs[row].as_py(), qcats[int(qcodes[row])].as_py()
            fault = duplicate_doc(doc, query, line(first))
            log.add(line(row), fault.message, field=fault.field, hint=fault.hint)


def _check_trec_lines(p: Path, data: bytes, skip: int = 0) -> bytes:
    """Slow path: name every bad line of a TREC run and raise, else return clean bytes.

    More than 6 fields is accepted (trec_eval ignores text after the tag); the
    returned bytes keep the first 6 fields of each line.
    """
    out: list[bytes] = []
    check = RankingCheck()
    with collecting(p) as log:
        for lineno, raw in enumerate(data.split(b"\n"), start=1 + skip):
            out.append(b" ".join(raw.split(b" ")[:6]))
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                log.add(lineno, undecodable_message(raw, exc), hint=UTF8_HINT)
                continue
            fields = line.split()
            if not fields:
                log.add(lineno, "blank line", hint="remove blank lines")
                continue
            if len(fields) < 6:
                log.add(lineno, f"expected 6 fields, found {len(fields)}", hint=_TREC_HINT)
                continue
            values: dict[str, float] = {}
            for idx, fname in ((3, "rank"), (4, "score")):
                try:
                    values[fname] = float(fields[idx])
                except ValueError:
                    log.add(
                        lineno,
                        f"{fname} {fields[idx]!r} is not a number",
                        field=fname,
                        hint=_TREC_HINT,
                    )
            if "score" not in values:
                continue
            fault = check.add(fields[0], fields[2], values["score"], lineno)
            if fault is not None:
                log.add(lineno, fault.message, field=fault.field, hint=fault.hint)
    return b"\n".join(out)


# ---------------------------------------------------------------------- JSONL
_JSONL_HINT = (
    'each line must be {"query_id": "...", "results": [doc_id, ...]} '
    'or results [{"doc_id": "...", "score": 1.0}, ...]'
)


def _load_jsonl(p: Path, name: str | None) -> Run:
    import pandas as pd

    qids: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    check = RankingCheck()
    seen_q: dict[str, int] = {}
    with collecting(p) as log:
        text = read_text(p, log)
        objects = () if text is None else json_lines(text, log, what="query", plural="queries")
        marked = False
        for lineno, obj in objects:
            if lineno == 1 and JSONL_MARKER in obj and "query_id" not in obj:
                marked = True  # written by `assay run`: a header, not a query
                continue
            _parse_jsonl_record(log, lineno, obj, seen_q, check, qids, docs, scores)
    has_scores = check.has_scores
    arr = np.asarray(scores, dtype=np.float64) if has_scores else np.full(len(docs), np.nan)
    qcat = pd.Categorical(qids, categories=pd.unique(pd.Series(qids, dtype=object)))
    dcat = pd.Categorical(docs)
    metadata: dict[str, Any] = {"format": "jsonl"}
    if marked:
        metadata[JSONL_MARKER] = True
    return _make_run(qcat, dcat, arr, name or p.stem, p, has_scores, metadata)


def _parse_jsonl_record(
    log: Any,
    lineno: int,
    obj: dict[str, Any],
    seen_q: dict[str, int],
    check: RankingCheck,
    qids: list[str],
    docs: list[str],
    scores: list[float],
) -> None:
    qid = obj.get("query_id")
    if qid is None or isinstance(qid, dict | list | bool) or str(qid) == "":
        log.add(lineno, "missing query_id", field="query_id", hint=_JSONL_HINT)
        return
    qid = str(qid)
    if qid in seen_q:
        log.add(
            lineno,
            f"duplicate query_id {qid!r} (first seen on line {seen_q[qid]})",
            field="query_id",
            hint="put all results of a query on one line",
        )
        return
    seen_q[qid] = lineno
    results = obj.get("results")
    if not isinstance(results, list):
        log.add(lineno, "results must be a list", field="results", hint=_JSONL_HINT)
        return
    for pos, item in enumerate(results, start=1):
        doc, score = (
            (item.get("doc_id"), item.get("score")) if isinstance(item, dict) else (item, None)
        )
        if doc is None or isinstance(doc, dict | list | bool) or str(doc) == "":
            log.add(lineno, f"result {pos} has no doc_id", field="results", hint=_JSONL_HINT)
            return
        doc = str(doc)
        fault = check.add(qid, doc, score, lineno)
        if fault is not None:
            log.add(lineno, fault.message, field=fault.field, hint=fault.hint)
            return
        qids.append(qid)
        docs.append(doc)
        scores.append(math.nan if score is None else float(score))


# ---------------------------------------------------------------------- build
def _make_run(
    qids: Any,
    docs: Any,
    scores: np.ndarray,
    name: str,
    p: Path,
    has_scores: bool,
    metadata: dict[str, Any],
) -> Run:
    import pandas as pd

    frame = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": scores}, copy=False)
    return Run(frame, name=name, path=str(p), has_scores=has_scores, metadata=metadata)
