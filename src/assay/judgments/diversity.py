"""TREC diversity qrels: ``query_id subtopic doc_id grade``, one line per subtopic judgment.

The second column, which plain TREC qrels leave as ``0`` or ``Q0``, names the
subtopic (intent) the document is judged for, as ndeval reads it; a document
may be judged once per subtopic. The set keeps every subtopic judgment in
:attr:`~assay.judgments.models.JudgmentSet.subtopics` for the diversity
measures (``alpha_nDCG``, ``ERR_IA``, ``NRBP``, ``P_IA``, ``StRecall``), and
gives every other measure each document's highest grade over its subtopics
(relevant to the query when relevant to one of its subtopics, as ndeval's MAP).

Grades are whole numbers; a (query, subtopic, document) judged twice is an
error naming both lines. Read it with ``--judgments-format trec-diversity``.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd

from assay.core.errors import ProblemLog
from assay.io.textio import decode, read_bytes
from assay.judgments._build import assemble, check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.models import JudgmentSet
from assay.judgments.trec import queries_from_qrels, read_queries_file

COLUMNS = ("query_id", "subtopic", "doc_id", "grade")
#: joins a query id and a subtopic while the plain checks run (ids have no spaces)
_JOIN = " subtopic "


def parse_diversity_qrels(
    data: bytes, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(plain qrels with each document's highest grade, the subtopic judgments).

    Both frames have ``query_id, doc_id, grade, line``; the second has
    ``subtopic`` too. Problems go to ``log`` with their line.
    """

    text = decode(data, log)
    if text is None:
        return _empty(), _empty()
    frame = read_table(data, text, COLUMNS, log, layout=" ".join(COLUMNS))
    if frame.empty:
        log.add(None, "empty file: no judgments", hint="write query_id subtopic doc_id grade")
        return _empty(), _empty()
    keyed = frame.assign(query_id=frame["query_id"] + _JOIN + frame["subtopic"])
    checked = check_qrels_frame(keyed[["query_id", "doc_id", "grade", "line"]], log, corpus_ids)
    parts = checked["query_id"].str.split(_JOIN, n=1, expand=True, regex=False)
    subtopics = checked.assign(query_id=parts[0], subtopic=parts[1])
    plain = (
        subtopics.groupby(["query_id", "doc_id"], sort=False, as_index=False)
        .agg(grade=("grade", "max"), line=("line", "min"))
        .sort_values("line", kind="stable")
        .reset_index(drop=True)
    )
    columns = ["query_id", "subtopic", "doc_id", "grade"]
    return plain, subtopics[columns].reset_index(drop=True)


def load_diversity(
    p: Path,
    log: ProblemLog,
    queries: str | Path | None,
    ids: Collection[str] | None,
    common: dict[str, Any],
) -> JudgmentSet:
    """The judgment set of diversity qrels ``p`` (an optional queries file as TREC's)."""

    plain, subtopics = parse_diversity_qrels(read_bytes(p), log, ids)
    texts = None
    if queries is not None:
        if not Path(queries).is_file():
            log.add(None, "queries file not found", path=str(queries), hint="check the path")
        else:
            texts = read_queries_file(queries, log)
    log.raise_if_any()
    frame, warnings = queries_from_qrels(
        plain, log, texts, None if queries is None else str(queries), text_required=True
    )
    log.raise_if_any()
    judgments = assemble(frame, plain, warnings=warnings, unmarked_no_answer=True, **common)
    judgments.subtopics = subtopics
    return judgments


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"query_id": [], "doc_id": [], "grade": [], "line": []}).astype(
        {"query_id": str, "doc_id": str, "grade": "int64", "line": "int64"}
    )
