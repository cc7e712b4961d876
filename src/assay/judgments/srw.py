"""OpenSearch Search Relevance Workbench (SRW) judgments and query sets.

Judgments (``"type": "IMPORT_JUDGMENT"``)::

    {"name": ..., "judgmentRatings": [
        {"query": "t towels kitchen", "ratings": [{"docId": "B07N...", "rating": "100.000"}]}]}

Query set: ``{"name": ..., "querySetQueries": [{"queryText": "laptop stand"}]}``.

Queries are named by their text, so the query id is the normalised text
(:func:`assay.core.querytext.query_id_for`: normalised, spaces as ``_``), the id behaviour
logs use too.
Ratings are numbers or numeric strings and must be whole. A file whose ratings
all lie in {0, 1, 10, 100} is on the ESCI scale (the gains 0, 0.01, 0.1, 1 of
Irrelevant, Complement, Substitute, Exact, times 100); it maps onto grades
0-3 as :data:`ESCI_GRADES` says, and the set carries a warning that says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import pandas as pd

from assay.core.errors import ProblemLog
from assay.core.querytext import query_id_for
from assay.io.textio import parse_json
from assay.judgments._build import Collector, QueryRecord

#: ESCI rating (SRW import scale) -> assay grade, with the ESCI label.
ESCI_GRADES = {0: (0, "Irrelevant"), 1: (1, "Complement"), 10: (2, "Substitute"), 100: (3, "Exact")}
ESCI_NOTE = (
    "ESCI ratings mapped onto grades 0-3: 0 Irrelevant -> 0, 1 Complement -> 1, "
    "10 Substitute -> 2, 100 Exact -> 3"
)


def _lines_of(text: str, key: str) -> list[int]:
    """1-based line of every ``"key":`` in ``text``, in order (JSON keeps key order)."""
    starts = [m.start() for m in re.finditer(rf'(?<!\\)"{re.escape(key)}"\s*:', text)]
    newlines = [m.start() for m in re.finditer("\n", text)]
    import bisect

    return [bisect.bisect_left(newlines, s) + 1 for s in starts]


def _document(text: str, log: ProblemLog, key: str) -> list | None:
    try:
        doc = parse_json(text)
    except json.JSONDecodeError as exc:
        log.add(exc.lineno, f"malformed JSON: {exc.msg} at column {exc.colno}")
        return None
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list):
        log.add(1, f"missing list {key!r}", field=key, hint=f"an SRW file holds a {key} list")
        return None
    return items


def parse_srw_queryset(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse an SRW query set: queries only (no judgments)."""
    out = Collector(log, corpus_ids, text_field="queryText")
    items = _document(text, log, "querySetQueries")
    if items is None:
        return out.frames()
    lines = _lines_of(text, "queryText")
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else None
        value = item.get("queryText") if isinstance(item, dict) else None
        if not isinstance(value, str):
            log.add(line, "queryText must be a string", field="queryText", hint="write the query")
            continue
        out.add_query(QueryRecord(query_id_for(value), value, line), text_field="queryText")
    return out.frames()


def parse_srw_judgments(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Parse SRW judgments; returns (queries, qrels, warnings)."""
    out = Collector(log, corpus_ids, relevant_field="ratings")
    items = _document(text, log, "judgmentRatings")
    if items is None:
        return (*out.frames(), [])
    qlines = _lines_of(text, "query")
    dlines = _lines_of(text, "docId")
    rows: list[tuple[str, str, float, int | None]] = []
    d = 0
    for i, item in enumerate(items):
        line = qlines[i] if i < len(qlines) else None
        query = item.get("query") if isinstance(item, dict) else None
        ratings = item.get("ratings") if isinstance(item, dict) else None
        if not isinstance(query, str) or not isinstance(ratings, list):
            log.add(line, "needs 'query' (text) and 'ratings' (list)", field="query")
            continue
        qid = query_id_for(query)
        if not out.add_query(QueryRecord(qid, query, line), text_field="query"):
            d += len(ratings)
            continue
        for r in ratings:
            rline = dlines[d] if d < len(dlines) else line
            d += 1
            parsed = _rating(r, rline, log)
            if parsed is not None:
                rows.append((qid, parsed[0], parsed[1], rline))
    values = {v for _, _, v, _ in rows}
    esci = bool(values) and values <= set(ESCI_GRADES) and bool(values & {10, 100})
    for qid, doc, value, rline in rows:
        grade = ESCI_GRADES[int(value)][0] if esci else int(value)
        out.add_judgment(qid, doc, grade, rline, "docId")
    return (*out.frames(), [ESCI_NOTE] if esci else [])


def _rating(r: Any, line: int | None, log: ProblemLog) -> tuple[str, float] | None:
    doc = r.get("docId") if isinstance(r, dict) else None
    value = r.get("rating") if isinstance(r, dict) else None
    if not isinstance(doc, str | int) or isinstance(doc, bool):
        log.add(line, "docId must be a string", field="docId", hint="write the document id")
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not number >= 0 or number != int(number):
        log.add(
            line,
            f"rating {value!r} of doc {doc!r} is not a whole number >= 0",
            field="rating",
            hint="ratings are grades like 0, 1, 2, 3 (or ESCI 0/1/10/100)",
        )
        return None
    return str(doc), number
