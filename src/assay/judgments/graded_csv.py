"""Graded CSV judgments: one row per (query, document, grade), e.g. Chorus's ``query,docid,rating``.

Columns are found by name (case-insensitive): the query as ``query_id`` and/or
``query`` text, the document as ``doc_id``, the grade as ``grade``; the aliases
in :data:`ALIASES` are accepted (``docid``, ``rating``, ``relevance``...), and
``columns`` maps other names (``{"grade": "score"}``). Without a ``query_id``
column the id is the normalised query text (spaces as ``_``). Grades are whole numbers >= 0
(``"2.0"`` is accepted). Every other column is ignored. A query with no grade
>= 1 cannot be marked otherwise in this format, so it counts as no-answer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd

from assay.core.errors import ProblemLog, UsageError
from assay.core.querytext import query_id_for
from assay.io.formats import GRADED_CSV_COLUMNS
from assay.io.textio import csv_table
from assay.judgments._build import Collector, QueryRecord

ROLES = ("query_id", "query", "doc_id", "grade")
ALIASES = GRADED_CSV_COLUMNS


def parse_columns(spec: str) -> dict[str, str]:
    """``"query=search_term,grade=score"`` -> ``{"query": "search_term", "grade": "score"}``."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        role, eq, name = part.partition("=")
        if not eq or role.strip() not in ROLES or not name.strip():
            raise UsageError(
                f"--columns {spec!r}: write ROLE=COLUMN pairs, roles {', '.join(ROLES)}"
            )
        out[role.strip()] = name.strip()
    return out


def _find(header: list[str], columns: Mapping[str, str]) -> dict[str, int | None]:
    low = [h.lower() for h in header]
    found: dict[str, int | None] = {}
    for role in ROLES:
        names = (columns[role],) if role in columns else ALIASES[role]
        found[role] = next((low.index(n.lower()) for n in names if n.lower() in low), None)
    return found


def parse_graded_csv(
    text: str,
    log: ProblemLog,
    corpus_ids: Collection[str] | None = None,
    columns: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse and check a graded CSV; returns (queries, qrels) frames."""
    out = Collector(log, corpus_ids, relevant_field="grade")
    table, rows = csv_table(text, log)
    if table is None:
        log.add(None, "empty file", hint="write a header: query,doc_id,grade")
        return out.frames()
    header_line, header = table
    cols = _find(header, columns or {})
    missing = [r for r in ("doc_id", "grade") if cols[r] is None]
    if cols["query_id"] is None and cols["query"] is None:
        missing.insert(0, "query")
    for role in missing:
        log.add(
            header_line,
            f"no {role} column in the header {','.join(header)!r}",
            field=role,
            hint=f"name it {ALIASES[role][0]} or map it with --columns {role}=NAME",
        )
    if missing:
        return out.frames()
    seen: set[str] = set()
    for line, row in rows:
        cells = {r: (row[i].strip() if i is not None else None) for r, i in cols.items()}
        text_value = cells["query"] if cells["query"] is not None else cells["query_id"]
        qid = cells["query_id"] if cells["query_id"] is not None else query_id_for(text_value or "")
        if not qid:
            log.add(line, "empty query", field="query", hint="every row names its query")
            continue
        if qid not in seen:
            seen.add(qid)
            out.add_query(QueryRecord(qid, text_value or "", line))
        grade = _grade(cells["grade"])
        if grade is None:
            log.add(
                line,
                f"grade {cells['grade']!r} is not a whole number >= 0",
                field=header[cols["grade"]],
                hint="write 0, 1, 2 or 3",
            )
            continue
        out.add_judgment(qid, cells["doc_id"] or "", grade, line, header[cols["doc_id"]])
    return out.frames()


def _grade(value: str | None) -> int | None:
    try:
        number = float(value or "")
    except ValueError:
        return None
    return int(number) if number >= 0 and number == int(number) else None
