"""TREC qrels (``query_id iteration doc_id grade``) with an optional queries file.

The qrels are read by the pandas C parser (500,000 lines in a fraction of a
second); comment lines starting with ``#`` are skipped as trec_eval does, and a
``#`` inside a doc id is kept. Three-column qrels (``query_id doc_id grade``,
e.g. Cranfield's) are read too: the first line decides. Grades are whole
numbers; negative grades (TREC Web's -2 for spam, trec_eval's -1) are judged
non-relevant for every measure. The queries file gives the query text: TSV
``id<TAB>text``, JSONL with ``_id``/``query_id`` and ``text``/``query``, or
TREC SGML topics (``<top><num> Number: 301 <title> ...``, the title is the
text); gzip is accepted. Without it, query text is empty.

TREC qrels cannot mark a no-answer query: a judged query with no grade >= 1
is scored as trec_eval scores it (0 on every ratio) and one warning counts them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd

from assay.core.errors import ProblemLog, collecting
from assay.core.pairs import first_rows
from assay.io.formats import sniff_line
from assay.io.irds import is_irds, query_texts
from assay.io.textio import decode, json_object, read_bytes, split_lines
from assay.judgments._build import assemble, check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.models import JudgmentSet
from assay.judgments.trec_fast import clean_qrels

QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "grade")
QRELS3_COLUMNS = ("query_id", "doc_id", "grade")
_QUERY_ID_KEYS = ("_id", "query_id", "id")
_QUERY_TEXT_KEYS = ("text", "query")


def parse_trec_qrels(
    data: bytes,
    log: ProblemLog,
    corpus_ids: Collection[str] | None = None,
    *,
    lenient: bool = False,
) -> pd.DataFrame:
    """Parse and check TREC qrels bytes; returns ``query_id, doc_id, grade, line``.

    ``lenient`` reads grades that are not whole numbers as trec_eval does (see
    :func:`~assay.judgments._build.check_qrels_frame`).
    """

    columns = QRELS3_COLUMNS if _field_count(data) == 3 else QRELS_COLUMNS
    fast = clean_qrels(data, columns) if corpus_ids is None else None
    if fast is not None:  # Arrow has checked the UTF-8 of every field
        fast.attrs["truncated_grades"] = 0
        return fast
    text = decode(data, log)
    if text is None:
        return _empty()
    frame = read_table(data, text, columns, log, layout=" ".join(columns))
    if frame.empty:
        log.add(
            None,
            "empty file: no judgments",
            hint="write one line per judgment: query_id iteration doc_id grade",
        )
        return _empty()
    return check_qrels_frame(frame, log, corpus_ids, lenient=lenient)


def _field_count(data: bytes) -> int:
    """Fields on the first line that is neither blank nor a comment (within the
    first 200 lines or 64 KiB)."""
    head = data[: 1 << 16].decode("utf-8", errors="ignore")  # split as the reader splits
    for line in head.split("\n", 200)[:200]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return len(stripped.split())
    return len(QRELS_COLUMNS)


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"query_id": [], "doc_id": [], "grade": [], "line": []}).astype(
        {"query_id": str, "doc_id": str, "grade": "int64", "line": "int64"}
    )


def read_queries_file(path: str | Path, log: ProblemLog) -> dict[str, tuple[str, int]]:
    """Read a queries file into ``{query_id: (text, line)}`` (problems name ``path``).

    TSV ``id<TAB>text`` (text may contain further tabs, kept as is) or JSONL
    objects with ``_id``/``query_id``/``id`` and ``text``/``query``; or ``irds:NAME``,
    the queries of an ir_datasets dataset in the local cache (:mod:`assay.io.irds`).
    """

    if is_irds(path):
        return query_texts(path)
    where = str(path)
    text = decode(read_bytes(path), log, where)
    if text is None:
        return {}
    lines = split_lines(text)
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        log.add(None, "empty queries file", hint="write id<TAB>text lines", path=where)
        return {}
    if first.lstrip().lower().startswith(("<top", "<doc")):
        return read_sgml_topics(text, log, where)
    jsonl = sniff_line(first.strip())[1] == "jsonl"
    out: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if jsonl:
            parsed = _json_query(line, number, log, where)
        else:
            qid, sep, qtext = line.partition("\t")
            if not sep:
                log.add(
                    number,
                    "expected id<TAB>text",
                    path=where,
                    hint="separate the query id from its text with a tab",
                )
                continue
            parsed = (qid.strip(), qtext.strip())
        if parsed is None:
            continue
        qid, qtext = parsed
        if qid in out:
            log.add(
                number,
                f"duplicate query_id {qid!r} (first seen on line {out[qid][1]})",
                field="query_id",
                hint="give every query its own id",
                path=where,
            )
            continue
        out[qid] = (qtext, number)
    return out


_TOP = re.compile(r"<(top|doc)>(.*?)</\1>", re.S | re.I)
_NUM = re.compile(r"<(?:num|docno)>\s*(?:number:)?\s*([^\s<]+)", re.I)
_TITLE = re.compile(r"<title>\s*(?:topic:)?(.*?)(?=<[a-z/]|\Z)", re.S | re.I)
_AFTER_DOCNO = re.compile(r"</docno>(.*)", re.S | re.I)


def read_sgml_topics(text: str, log: ProblemLog, where: str) -> dict[str, tuple[str, int]]:
    """TREC SGML topics: ``<top> <num> Number: 301 <title> text ... </top>``.

    The title (whitespace collapsed) is the query text. The ``<DOC> <DOCNO> 1
    </DOCNO> text </DOC>`` form (CACM's topics) is read too, its text being all
    that follows the number. Problems name the line of the topic's first tag.
    """
    out: dict[str, tuple[str, int]] = {}
    for match in _TOP.finditer(text):
        body, line = match.group(2), text.count("\n", 0, match.start()) + 1
        num, title = _NUM.search(body), _TITLE.search(body)
        if title is None and match.group(1).lower() == "doc":
            title = _AFTER_DOCNO.search(body)
        if num is None:
            log.add(line, "topic without <num>", path=where, field="num", hint="add <num> 301")
            continue
        qid = num.group(1).strip()
        if qid in out:
            log.add(
                line,
                f"duplicate query_id {qid!r} (first seen on line {out[qid][1]})",
                field="num",
                hint="give every topic its own number",
                path=where,
            )
            continue
        out[qid] = (" ".join((title.group(1) if title else "").split()), line)
    if not out:
        log.add(None, "no <top> topic found", path=where, hint="write <top> <num> ... </top>")
    return out


def _json_query(line: str, number: int, log: ProblemLog, where: str) -> tuple[str, str] | None:
    obj = json_object(line, number, log, what="query", path=where)
    if obj is None:
        return None
    id_key = next((k for k in _QUERY_ID_KEYS if k in obj), None)
    text_key = next((k for k in _QUERY_TEXT_KEYS if k in obj), None)
    if id_key is None or text_key is None:
        missing = "_id" if id_key is None else "text"
        log.add(
            number,
            f"missing key {missing!r}",
            field=missing,
            path=where,
            hint='write {"_id": ..., "text": ...}',
        )
        return None
    qid, qtext = obj[id_key], obj[text_key]
    if isinstance(qid, int) and not isinstance(qid, bool):
        qid = str(qid)
    if not isinstance(qid, str) or not isinstance(qtext, str):
        log.add(
            number,
            "query id and text must be strings",
            path=where,
            field=id_key,
            hint="write both as JSON strings",
        )
        return None
    return qid, qtext


def queries_from_qrels(
    qrels: pd.DataFrame,
    log: ProblemLog,
    texts: dict[str, tuple[str, int]] | None,
    queries_path: str | None,
    *,
    text_required: bool,
) -> tuple[pd.DataFrame, list[str]]:
    """Queries frame (file order of first judgment) for checked qrels, plus warnings.

    With ``texts``, a judged query missing from it is an error naming the qrels
    line; empty text is an error when ``text_required``.
    """

    rows = first_rows(qrels["query_id"])
    first_ids = qrels["query_id"].take(rows).reset_index(drop=True)
    first_lines = qrels["line"].to_numpy()[rows]
    warnings: list[str] = []
    if texts is None:
        text_col: Any = pd.Series("", index=first_ids.index, dtype=first_ids.dtype)
    else:
        ids = first_ids.tolist()
        text_col = []
        for qid, line in zip(ids, first_lines.tolist(), strict=True):
            entry = texts.get(qid)
            if entry is None:
                log.add(
                    int(line),
                    f"query {qid!r} is not in the queries file {queries_path}",
                    field="query_id",
                    hint="add the query to the queries file",
                )
                text_col.append("")
                continue
            if text_required and not entry[0].strip():
                log.add(
                    entry[1],
                    f"empty query text for {qid!r}",
                    field="text",
                    path=queries_path,
                    hint="write the query text",
                )
            text_col.append(entry[0])
        extra = len(set(texts) - set(ids))
        if extra:
            warnings.append(
                f"{extra} queries of {queries_path} have no judgments in this set and were left out"
            )
    frame = pd.DataFrame(
        {"query_id": first_ids, "text": text_col, "no_answer": False, "line": first_lines}
    )
    return frame, warnings


def load_trec_eval_qrels(path: str | Path) -> JudgmentSet:
    """TREC qrels read exactly as trec_eval reads them (for ``assay trec-eval``).

    Unlike :func:`~assay.judgments.load.load_judgments`, a grade that is not a
    whole number is not an error: it is read with C ``atol`` (``1.5`` -> 1) and
    one warning counts such grades. Every other check (fields, duplicates)
    stays.
    """

    p = Path(path)
    with collecting(p) as log:
        qrels = parse_trec_qrels(read_bytes(p), log, lenient=True)
        log.raise_if_any()
        frame, warnings = queries_from_qrels(qrels, log, None, None, text_required=False)
        truncated = int(qrels.attrs.get("truncated_grades", 0))
        if truncated:
            warnings.append(
                f"{truncated} grades are not whole numbers; read as trec_eval reads them "
                "(C atol: the leading digits, 1.5 -> 1, 1e+8 -> 1)"
            )
        return assemble(
            frame, qrels, warnings=warnings, unmarked_no_answer=True,
            name=p.stem, path=str(p), format="trec",
        )  # fmt: skip
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises
