"""Read and write run files: TREC (``qid Q0 docid rank score tag``) and JSONL.

The TREC reader is vectorised: pyarrow reads the file itself (no copy of it in
Python) into compact Arrow arrays (:mod:`assay.runs._columns`); only when that
fails are the bytes normalised (BOM, CRLF, tabs and repeated spaces) and parsed
again, and query and document ids are kept dictionary-encoded (pandas categoricals), so a
ten-million-line run never becomes ten million Python strings. When the fast
parse fails, a line-by-line checker names every bad line (up to
:data:`assay.errors.MAX_PROBLEMS`).

JSONL runs hold one query per line::

    {"query_id": "q1", "results": ["d3", "d1"]}
    {"query_id": "q2", "results": [{"doc_id": "d7", "score": 2.5}]}
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from assay.errors import InputError, Problem, UsageError, collecting
from assay.formats import format_from_name
from assay.pairs import arrow_column, repeated_ids
from assay.runs._columns import Columns, categorical, parse_columns
from assay.runs.checks import RankingCheck, duplicate_doc, score_fault
from assay.runs.models import Run
from assay.textio import BOM, UTF8_HINT, read_bytes, undecodable_message

FORMATS = ("trec", "jsonl")
#: The first line of a TREC run written by ``assay run`` (trec_eval 10 skips ``#`` lines):
#: such a run must have its sidecar beside it (:mod:`assay.procedures.sources`).
TREC_MARKER = b"# assay run:"
#: The key of the first object of a JSONL run written by ``assay run`` (the same marker).
JSONL_MARKER = "assay_run"
_TREC_HINT = "each line must be 'query_id Q0 doc_id rank score tag' (6 fields)"


# --------------------------------------------------------------------- detect
def detect_format(path: str | Path) -> str:
    """The run format of ``path``, from its name, then its content; see :mod:`assay.formats`."""
    from assay.formats import detect_format as detect

    return detect(path, "run")


def load_run(path: str | Path, format: str | None = None, name: str | None = None) -> Run:
    """Load a run file (``format`` 'trec' or 'jsonl'; detected when ``None``).

    ``name`` defaults to the TREC tag of the first line, else the file stem.
    Raises :class:`InputError` naming each bad line (file, line, field, hint),
    :class:`UsageError` for an unknown format or a missing file.
    """
    from assay.fileio import check_input

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


def marker_lines(path: str | Path) -> int:
    """1 when the TREC run at ``path`` starts with the marker of ``assay run``, else 0."""
    with open(path, "rb") as fh:
        return 1 if fh.read(len(TREC_MARKER)) == TREC_MARKER else 0


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
    p: Path, columns: Columns, name: str | None, tag: str | None, skip: int = 0
) -> Run:
    """``skip`` lines (the marker of :data:`TREC_MARKER`) came before the first row."""
    qcodes, qcats, doc_ids, scores = columns
    docs = arrow_column(doc_ids)  # the pandas array's own Arrow column (hashes known)
    with collecting(p) as log:
        for row in np.flatnonzero(~np.isfinite(scores))[:20]:
            doc = docs[int(row)].as_py()
            fault = score_fault(doc, float(scores[row]))
            assert fault is not None  # a non-finite score always breaks the rule
            log.add(int(row) + 1 + skip, fault.message, field=fault.field, hint=fault.hint)
    _check_duplicates(p, qcodes, qcats, docs, skip)
    run_name = name or tag or p.stem
    metadata: dict[str, Any] = {"format": "trec", "warnings": []}
    if skip:
        metadata[JSONL_MARKER] = True
    return _make_run(categorical(qcodes, qcats), doc_ids, scores, run_name, p, True, metadata)


def _check_duplicates(p: Path, qcodes: np.ndarray, qcats: Any, docs: Any, skip: int = 0) -> None:
    """Raise naming every repeated (query, doc) pair with the line of its first use."""
    rows, firsts = repeated_ids(qcodes, docs)
    if not len(rows):
        return
    with collecting(p) as log:
        for row, first in zip(rows.tolist(), firsts.tolist(), strict=True):
            doc, query = docs[row].as_py(), qcats[int(qcodes[row])].as_py()
            fault = duplicate_doc(doc, query, first + 1 + skip)
            log.add(row + 1 + skip, fault.message, field=fault.field, hint=fault.hint)


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

    from assay.fileio import check_input

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


# ---------------------------------------------------------------------- JSONL
_JSONL_HINT = (
    'each line must be {"query_id": "...", "results": [doc_id, ...]} '
    'or results [{"doc_id": "...", "score": 1.0}, ...]'
)


def _load_jsonl(p: Path, name: str | None) -> Run:
    import pandas as pd

    from assay.textio import json_lines, read_text

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


# ---------------------------------------------------------------------- write
def write_run(
    run: Run,
    path: str | Path,
    format: str | None = None,
    tag: str | None = None,
    ties: str = "score",
) -> None:
    """Write ``run`` atomically (temp file, then rename) as TREC or JSONL.

    Rows are written in rank order (``ties`` as in :meth:`Run.ranked`). A run
    without scores gets TREC scores ``n - rank + 1`` so that trec_eval keeps
    its order; in JSONL it is written as bare doc ids.
    """
    from assay.fileio import write_bytes_atomic

    write_bytes_atomic(path, run_bytes(run, path, format, tag, ties))


def run_bytes(
    run: Run,
    path: str | Path,
    format: str | None = None,
    tag: str | None = None,
    ties: str = "score",
    sidecar: str | None = None,
) -> bytes:
    """The bytes :func:`write_run` writes to ``path`` (format from its suffix).

    ``sidecar`` (the sidecar's file name) starts the file with the marker of a
    run written by ``assay run`` (:data:`TREC_MARKER`, :data:`JSONL_MARKER`).
    """
    p = Path(path)
    fmt = format or format_from_name(p, "run") or "trec"
    if fmt not in FORMATS:
        raise UsageError(f"unknown run format {fmt!r}; use one of {', '.join(FORMATS)}")
    ranked = run.ranked(ties)  # type: ignore[arg-type]
    payload = _trec_bytes(ranked, run, tag) if fmt == "trec" else _jsonl_bytes(ranked, run)
    if sidecar is None:
        return payload
    if fmt == "trec":
        note = f" sidecar {sidecar}; keep the two files together\n"
        return TREC_MARKER + note.replace("\n", " ").rstrip().encode() + b"\n" + payload
    header = {JSONL_MARKER: {"sidecar": sidecar, "note": "keep the two files together"}}
    return (json.dumps(header, ensure_ascii=False) + "\n").encode() + payload


def _ranks(qids: Any) -> np.ndarray:
    import pandas as pd

    codes, _ = pd.factorize(qids)
    return (pd.Series(codes).groupby(codes).cumcount() + 1).to_numpy()


def _trec_bytes(ranked: Any, run: Run, tag: str | None) -> bytes:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    tagname = tag or run.name or "run"
    if re.search(r"\s", tagname):
        raise UsageError(f"run tag {tagname!r} must not contain whitespace")
    n = len(ranked)
    ranks = _ranks(ranked["query_id"]) if n else np.zeros(0, dtype=np.int64)
    if run.has_scores:
        scores = pa.array([repr(float(s)) for s in ranked["score"].to_numpy()], pa.string())
    else:
        codes = _codes(ranked["query_id"])
        sizes = np.bincount(codes)[codes] if n else np.zeros(0, dtype=np.int64)
        scores = pa.array((sizes - ranks + 1).astype(np.int64)).cast(pa.string())
    table = pa.table(
        {
            "q": pa.array(ranked["query_id"].astype(str).to_numpy(), pa.string()),
            "z": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
            "d": pa.array(ranked["doc_id"].astype(str).to_numpy(), pa.string()),
            "r": pa.array(ranks.astype(np.int64)).cast(pa.string()),
            "s": scores,
            "t": pa.array(np.full(n, tagname, dtype=object), pa.string()),
        }
    )
    sink = pa.BufferOutputStream()
    pacsv.write_csv(
        table,
        sink,
        pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    return sink.getvalue().to_pybytes()


def _codes(values: Any) -> np.ndarray:
    """Integer codes of ``values`` in first-appearance order."""
    import pandas as pd

    codes, _ = pd.factorize(values)
    return codes


def _jsonl_bytes(ranked: Any, run: Run) -> bytes:
    out: dict[str, list[Any]] = {}
    for q, d, s in zip(
        ranked["query_id"].astype(str).tolist(),
        ranked["doc_id"].astype(str).tolist(),
        ranked["score"].tolist(),
        strict=True,
    ):
        item: Any = {"doc_id": d, "score": s} if run.has_scores else d
        out.setdefault(q, []).append(item)
    lines = [json.dumps({"query_id": q, "results": r}, ensure_ascii=False) for q, r in out.items()]
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
