"""TREC qrels (``query_id iteration doc_id grade``) with an optional queries file.

The qrels are read by the pandas C parser (500,000 lines in a fraction of a
second); comment lines starting with ``#`` are skipped as trec_eval does, and a
``#`` inside a doc id is kept. The queries file gives the query text: TSV
``id<TAB>text`` or JSONL with ``_id``/``query_id`` and ``text``/``query``; gzip
is accepted. Without it, query text is empty.

TREC qrels cannot mark a no-answer query: queries with no grade >= 1 become
no-answer and one warning counts them.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

import pandas as pd

from assay.errors import ProblemLog
from assay.judgments._build import check_qrels_frame
from assay.judgments._table import read_table
from assay.safejson import loads as safe_loads
from assay.textio import decode, read_bytes, split_lines

QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "grade")
_QUERY_ID_KEYS = ("_id", "query_id", "id")
_QUERY_TEXT_KEYS = ("text", "query")


def parse_trec_qrels(
    data: bytes, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> pd.DataFrame:
    """Parse and check TREC qrels bytes; returns ``query_id, doc_id, grade, line``."""
    text = decode(data, log)
    if text is None:
        return _empty()
    frame = read_table(data, text, QRELS_COLUMNS, log, layout="query_id iteration doc_id grade")
    if frame.empty:
        log.add(
            None,
            "empty file: no judgments",
            hint="write one line per judgment: query_id iteration doc_id grade",
        )
        return _empty()
    return check_qrels_frame(frame, log, corpus_ids)


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"query_id": [], "doc_id": [], "grade": [], "line": []}).astype(
        {"query_id": str, "doc_id": str, "grade": "int64", "line": "int64"}
    )


def read_queries_file(path: str | Path, log: ProblemLog) -> dict[str, tuple[str, int]]:
    """Read a queries file into ``{query_id: (text, line)}`` (problems name ``path``).

    TSV ``id<TAB>text`` (text may contain further tabs, kept as is) or JSONL
    objects with ``_id``/``query_id``/``id`` and ``text``/``query``.
    """
    where = str(path)
    text = decode(read_bytes(path), log, where)
    if text is None:
        return {}
    lines = split_lines(text)
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        log.add(None, "empty queries file", hint="write id<TAB>text lines", path=where)
        return {}
    jsonl = first.lstrip().startswith("{")
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


def _json_query(line: str, number: int, log: ProblemLog, where: str) -> tuple[str, str] | None:
    try:
        obj = safe_loads(line)
    except json.JSONDecodeError as exc:
        log.add(
            number,
            f"malformed JSON: {exc.msg} at column {exc.colno}",
            path=where,
            hint="each line must be one complete JSON object",
        )
        return None
    if not isinstance(obj, dict):
        log.add(
            number, "expected a JSON object", path=where, hint='write {"_id": ..., "text": ...}'
        )
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
    first = qrels.drop_duplicates("query_id")[["query_id", "line"]]
    ids = first["query_id"].tolist()
    warnings: list[str] = []
    if texts is None:
        text_col = [""] * len(ids)
    else:
        text_col = []
        for qid, line in zip(ids, first["line"].tolist(), strict=True):
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
        {"query_id": ids, "text": text_col, "no_answer": False, "line": first["line"].to_numpy()}
    )
    return frame, warnings
