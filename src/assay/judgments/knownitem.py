"""Known-item question CSV (seed 003): one row per question.

Columns ``question_id, language, question, expected_id, note`` (header on line
1). ``query_id``/``id`` and ``query``/``text`` are accepted as aliases.
``expected_id`` holds the doc id that answers the question (grade 1), several
ids separated by ``;`` or ``|``, or ``NONE`` for a question with no answer.
Every other column (``language``, ``note``...) becomes metadata; a ``note`` may
hold several ``;``-separated tags.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import pandas as pd

from assay.core.errors import ProblemLog
from assay.io.textio import csv_table
from assay.judgments._build import Collector, QueryRecord
from assay.judgments.models import NO_ANSWER

ID_COLUMNS = ("question_id", "query_id", "id")
TEXT_COLUMNS = ("question", "query", "text")
EXPECTED_COLUMNS = ("expected_id", "expected_ids", "doc_id")
_REQUIRED = ", ".join(n[0] for n in (ID_COLUMNS, TEXT_COLUMNS, EXPECTED_COLUMNS))
_SPLIT = re.compile(r"[;|]")


def parse_known_item_csv(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse and check a known-item CSV; returns (queries, qrels) frames."""
    out = Collector(
        log,
        corpus_ids,
        text_field="question",
        id_field="question_id",
        relevant_field="expected_id",
    )
    table, rows = csv_table(
        text,
        log,
        skip_initial_space=True,
        blank_hint="remove it: every line after the header is a question",
    )
    if table is None:
        log.add(
            None,
            "empty file: no header and no questions",
            hint="write a header line: question_id,language,question,expected_id,note",
        )
        return out.frames()
    header_line, header = table
    cols = {}
    for role, names in (("id", ID_COLUMNS), ("text", TEXT_COLUMNS), ("expected", EXPECTED_COLUMNS)):
        found = next((n for n in names if n in header), None)
        if found is None:
            log.add(
                header_line,
                f"missing column {names[0]!r}",
                field=names[0],
                hint=f"the header must name {_REQUIRED}",
            )
        cols[role] = found
    if None in cols.values():
        return out.frames()
    reserved = set(cols.values())
    index = {h: i for i, h in enumerate(header)}
    for line, row in rows:
        value = {h: row[i].strip() for h, i in index.items()}
        qid = value[cols["id"]]
        if not qid:
            log.add(line, "empty question id", field=cols["id"], hint="give every question an id")
            continue
        expected = value[cols["expected"]]
        ids = [d.strip() for d in _SPLIT.split(expected) if d.strip()]
        if not ids:
            log.add(
                line,
                f"empty {cols['expected']} for {qid!r}",
                field=cols["expected"],
                hint=f"write the id of the answer, or {NO_ANSWER} when there is none",
            )
            continue
        no_answer = ids == [NO_ANSWER]
        if not no_answer and NO_ANSWER in ids:
            log.add(
                line,
                f"{NO_ANSWER} listed with other expected ids for {qid!r}",
                field=cols["expected"],
                hint=f"use {NO_ANSWER} alone",
            )
            continue
        meta = {h: (v or None) for h, v in value.items() if h not in reserved}
        rec = QueryRecord(qid, value[cols["text"]], line, no_answer, meta)
        if not out.add_query(rec):
            continue
        if not no_answer:
            for doc in ids:
                out.add_judgment(qid, doc, 1, line, cols["expected"])
    if not rows and not log:
        log.add(None, "no questions after the header", hint="add one row per question")
    out.check_positives(f"write {NO_ANSWER} as {cols['expected']}")
    return out.frames()
