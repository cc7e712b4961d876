"""Parse one JSON query object (JSONL line or JSON list item) into a query and judgments.

Accepted keys (English and the French keys of seed 001):

* id: ``query_id``, ``id`` or ``_id`` (a string or an integer);
* text: ``query``, ``requête``, ``question`` or ``text``;
* relevant docs: ``relevant`` / ``pertinents``, either ``{doc_id: grade}`` or a
  list of doc ids (grade 1 each);
* known non-relevant docs: ``non_relevant`` / ``non_pertinents``, a list of doc
  ids (grade 0 each);
* ``no_answer``: ``true`` marks a query with no relevant document. A relevant
  entry holding only ``NONE`` means the same.

Every other key is kept as a metadata string (``None`` stays missing).
"""

from __future__ import annotations

import json
from typing import Any

from assay.judgments._build import Collector, QueryRecord, is_grade
from assay.judgments.models import NO_ANSWER

ID_KEYS = ("query_id", "id", "_id")
TEXT_KEYS = ("query", "requête", "question", "text")
RELEVANT_KEYS = ("relevant", "pertinents")
NON_RELEVANT_KEYS = ("non_relevant", "non_pertinents")
_RESERVED = set(ID_KEYS + TEXT_KEYS + RELEVANT_KEYS + NON_RELEVANT_KEYS) | {"no_answer"}
_MARK = 'set "no_answer": true'


def _first_key(obj: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if k in obj), None)


def parse_record(obj: Any, line: int, out: Collector, default_id: str | None = None) -> None:
    """Check one JSON object and add its query and judgments to ``out``.

    ``default_id`` is used when the object carries no id key (JSON list);
    without it a missing id is an error (JSONL).
    """
    log = out.log
    if not isinstance(obj, dict):
        log.add(
            line,
            f"a query must be a JSON object, got {type(obj).__name__}",
            hint='write one object like {"query_id": ..., "query": ..., "relevant": {...}}',
        )
        return
    id_key = _first_key(obj, ID_KEYS)
    qid: Any = obj[id_key] if id_key else default_id
    if id_key is None and default_id is None:
        log.add(
            line, "missing key 'query_id'", field="query_id", hint="give every query a unique id"
        )
        return
    if isinstance(qid, int) and not isinstance(qid, bool):
        qid = str(qid)
    if not isinstance(qid, str) or not qid.strip():
        log.add(
            line,
            f"query id must be a non-empty string, found {qid!r}",
            field=id_key,
            hint="give every query a unique id",
        )
        return
    text_key, text = _query_text(obj, qid, line, log)
    no_answer = obj.get("no_answer", False)
    if not isinstance(no_answer, bool):
        log.add(
            line,
            f"no_answer must be true or false, found {no_answer!r}",
            field="no_answer",
            hint="write true or false without quotes",
        )
        no_answer = False
    metadata = {k: _meta(v) for k, v in obj.items() if k not in _RESERVED}
    grades, none_relevant = _no_answer_marker(_judgments(obj, line, qid, out) or {}, qid, line, log)
    rec = QueryRecord(qid, text, line, no_answer or none_relevant, metadata)
    if not out.add_query(rec, text_field=text_key):
        return
    keys = getattr(out, "judgment_keys", {})
    for doc, grade in grades.items():
        out.add_judgment(qid, doc, grade, line, keys.get(doc, "relevant"))


def _query_text(obj: dict[str, Any], qid: str, line: int, log: Any) -> tuple[str | None, str]:
    """``(key, text)`` of a record's query text; a missing or non-string text is logged and
    read as empty (empty text itself is reported by ``Collector.add_query``)."""
    text_key = _first_key(obj, TEXT_KEYS)
    text = obj.get(text_key) if text_key else None
    if text_key is None:
        log.add(
            line,
            f"missing key 'query' for {qid!r}",
            field="query",
            hint="add the query text under 'query'",
        )
        return None, ""
    if not isinstance(text, str):
        log.add(
            line,
            f"query text must be a string, found {type(text).__name__}",
            field=text_key,
            hint="write the query as a JSON string",
        )
        return text_key, ""
    return text_key, text


def _no_answer_marker(
    grades: dict[str, int], qid: str, line: int, log: Any
) -> tuple[dict[str, int], bool]:
    """The grades without the no-answer marker, and whether the marker stood alone (the
    query has no answer); listed beside relevant documents it is logged and dropped."""
    positives = [d for d, g in grades.items() if g >= 1]
    if NO_ANSWER not in positives:
        return grades, False
    if positives != [NO_ANSWER]:
        log.add(
            line,
            f"{NO_ANSWER} listed with other relevant docs for {qid!r}",
            field="relevant",
            hint=f"use {NO_ANSWER} alone for a query with no answer",
        )
    return {d: g for d, g in grades.items() if d != NO_ANSWER}, positives == [NO_ANSWER]


def _meta(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _judgments(obj: dict[str, Any], line: int, qid: str, out: Collector) -> dict[str, int] | None:
    log = out.log
    rel_key = _first_key(obj, RELEVANT_KEYS)
    grades: dict[str, int] = {}
    if rel_key is None:
        if obj.get("no_answer") is not True:
            log.add(
                line,
                f"missing key 'relevant' for {qid!r}",
                field="relevant",
                hint=f'add {{"doc_id": grade}} or {_MARK}',
            )
        rel: Any = {}
    else:
        rel = obj[rel_key]
    if isinstance(rel, list):
        rel = {d: 1 for d in _doc_list(rel, rel_key or "relevant", line, qid, out)}
    if not isinstance(rel, dict):
        log.add(
            line,
            f"{rel_key} must be an object {{doc_id: grade}} or a list of doc ids",
            field=rel_key,
            hint='write e.g. {"doc-1": 2}',
        )
        return None
    keys: dict[str, str] = {}
    for doc, grade in rel.items():
        if not is_grade(grade):
            out.bad_grade_queries.add(qid)  # its "no relevant doc" would repeat this error
            log.add(
                line,
                f"grade {grade!r} of doc {doc!r} is not a non-negative integer",
                field=rel_key,
                hint="a grade is an integer >= 0 without quotes, e.g. 2",
            )
            continue
        grades[doc] = grade
        keys[doc] = rel_key or "relevant"
    non_key = _first_key(obj, NON_RELEVANT_KEYS)
    if non_key is not None:
        for doc in _doc_list(obj[non_key], non_key, line, qid, out):
            if doc in grades:
                log.add(
                    line,
                    f"doc {doc!r} is listed as relevant and non-relevant for {qid!r}",
                    field=non_key,
                    hint="keep the doc in one list only",
                )
                continue
            grades[doc] = 0
            keys[doc] = non_key
    out.judgment_keys = keys  # which key each doc came from, for error messages
    return grades


def _doc_list(value: Any, key: str, line: int, qid: str, out: Collector) -> list[str]:
    if not isinstance(value, list):
        out.log.add(
            line,
            f"{key} must be a list of doc ids for {qid!r}",
            field=key,
            hint='write e.g. ["doc-1", "doc-2"]',
        )
        return []
    docs: list[str] = []
    for doc in value:
        if not isinstance(doc, str) or not doc.strip():
            out.log.add(
                line,
                f"doc id {doc!r} in {key} is not a non-empty string",
                field=key,
                hint="write doc ids as JSON strings",
            )
            continue
        if doc in docs:
            out.log.add(
                line,
                f"duplicate judgment of doc {doc!r} for query {qid!r}",
                field=key,
                hint="list every doc once",
            )
            continue
        docs.append(doc)
    return docs
