"""Shared checks and assembly of a :class:`JudgmentSet` from parsed rows.

Row-wise formats (JSONL, JSON list, known-item CSV) feed a :class:`Collector`
one query and one judgment at a time; tabular formats (TREC, BEIR) check a
whole qrels frame at once with :func:`check_qrels_frame`. Both end in
:func:`assemble`, which decides which queries are no-answer.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay.core.errors import ProblemLog
from assay.core.pairs import arrow_text, codes, first_rows
from assay.core.repeats import repeated_ids
from assay.judgments.models import LABEL_SOURCES, JudgmentSet


@dataclass
class QueryRecord:
    """One parsed query: ``no_answer`` is True when the file marks it so."""

    query_id: str
    text: str
    line: int | None
    no_answer: bool = False
    metadata: dict[str, str | None] = field(default_factory=dict)


def is_grade(value: Any) -> bool:
    """True for a JSON grade: an ``int`` >= 0 that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class Collector:
    """Collect queries and judgments row by row, checking each as it comes."""

    def __init__(
        self,
        log: ProblemLog,
        corpus_ids: Collection[str] | None = None,
        text_field: str = "query",
        id_field: str = "query_id",
        relevant_field: str = "relevant",
    ) -> None:
        self.log = log
        self.corpus_ids = corpus_ids
        self.text_field = text_field
        self.id_field = id_field
        self.relevant_field = relevant_field
        #: the key each doc of the current query came from (set by the JSON readers)
        self.judgment_keys: dict[str, str] = {}
        #: queries with an invalid grade (already reported; no "no relevant doc" on top)
        self.bad_grade_queries: set[str] = set()
        self.queries: list[QueryRecord] = []
        self._query_line: dict[str, int | None] = {}
        self._pair_line: dict[tuple[str, str], int | None] = {}
        self.judgments: list[tuple[str, str, int, int | None]] = []

    def add_query(self, rec: QueryRecord, text_field: str | None = None) -> bool:
        """Check and keep one query; False when its id was already seen.

        ``text_field`` names the key the text came from (``requête`` in a French
        file) so that an error names the field the user wrote.
        """
        if rec.query_id in self._query_line:
            first = self._query_line[rec.query_id]
            self.log.add(
                rec.line,
                f"duplicate query_id {rec.query_id!r} (first seen on line {first})",
                field=self.id_field,
                hint="give every query its own id, or merge the two entries",
            )
            return False
        self._query_line[rec.query_id] = rec.line
        if not rec.text.strip():
            self.log.add(
                rec.line,
                f"empty query text for {rec.query_id!r}",
                field=text_field or self.text_field,
                hint="write the query as users would type it",
            )
        check_source(rec.metadata.get("source"), rec.line, self.log)
        self.queries.append(rec)
        return True

    def add_judgment(
        self, query_id: str, doc_id: str, grade: int, line: int | None, field: str
    ) -> None:
        """Check and keep one judgment (duplicates and unknown doc ids are errors)."""
        key = (query_id, doc_id)
        if key in self._pair_line:
            self.log.add(
                line,
                f"duplicate judgment of doc {doc_id!r} for query {query_id!r} "
                f"(first seen on line {self._pair_line[key]})",
                field=field,
                hint="keep one grade per document and query",
            )
            return
        self._pair_line[key] = line
        if not doc_id.strip():
            self.log.add(
                line,
                f"empty doc id for query {query_id!r}",
                field=field,
                hint="write the id of a document of the corpus",
            )
            return
        if self.corpus_ids is not None and doc_id not in self.corpus_ids:
            self.log.add(
                line,
                f"doc id {doc_id!r} (query {query_id!r}) is not in the corpus",
                field=field,
                hint="fix the id or add the document to the corpus",
            )
        self.judgments.append((query_id, doc_id, grade, line))

    def check_positives(self, mark_hint: str) -> None:
        """Every query needs a positive judgment or an explicit no-answer mark."""
        positive = {q for q, _, g, _ in self.judgments if g >= 1}
        for rec in self.queries:
            if rec.no_answer and rec.query_id in positive:
                self.log.add(
                    rec.line,
                    f"query {rec.query_id!r} is marked no-answer but has a relevant doc",
                    field="no_answer",
                    hint="remove the no-answer mark or the grades >= 1",
                )
            elif (
                not rec.no_answer
                and rec.query_id not in positive
                and rec.query_id not in self.bad_grade_queries
            ):
                self.log.add(
                    rec.line,
                    f"query {rec.query_id!r} has no relevant doc (no grade >= 1)",
                    field=self.relevant_field,
                    hint=f"add a relevant doc, or {mark_hint}",
                )

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The queries and qrels frames of what was collected."""
        rows = []
        for rec in self.queries:
            rows.append(
                {
                    "query_id": rec.query_id,
                    "text": rec.text,
                    "no_answer": rec.no_answer,
                    "line": rec.line,
                }
                | rec.metadata
            )
        queries = pd.DataFrame(
            rows, columns=None if rows else ["query_id", "text", "no_answer", "line"]
        )
        qrels = pd.DataFrame(
            [(q, d, g) for q, d, g, _ in self.judgments],
            columns=["query_id", "doc_id", "grade"],
        )
        return queries, qrels


def check_source(value: str | None, line: int | None, log: ProblemLog) -> None:
    """``source`` must be one of :data:`LABEL_SOURCES` when present."""
    if value is not None and value not in LABEL_SOURCES:
        log.add(
            line,
            f"invalid source {value!r}",
            field="source",
            hint=f"use one of {', '.join(LABEL_SOURCES)}",
        )


def check_qrels_frame(
    frame: pd.DataFrame,
    log: ProblemLog,
    corpus_ids: Collection[str] | None,
    *,
    grade_field: str = "grade",
    doc_field: str = "doc_id",
    lenient: bool = False,
) -> pd.DataFrame:
    """Vectorised checks of a qrels frame with ``query_id, doc_id, grade (str), line``.

    TREC and BEIR grades are whole numbers; a negative grade is kept (trec_eval
    reads it as judged non-relevant, "in the pool but unjudged"). Reports
    grades that are not whole numbers, duplicate (query, doc) pairs and doc ids
    missing from ``corpus_ids``; returns ``query_id, doc_id, grade (int64),
    line`` without the bad rows. With ``lenient`` (``assay trec-eval``) a grade
    that is not a whole number is read as trec_eval reads it (C ``atol``: the
    leading digits, ``1.5`` -> 1, ``1e+8`` -> 1, ``0x37`` -> 0) and counted in
    ``frame.attrs["truncated_grades"]`` instead of being an error.
    """
    frame, grade_ok, truncated = _checked_grades(frame, log, grade_field, lenient)
    dup = _log_duplicates(frame, log, doc_field)
    keep = grade_ok & ~dup
    if corpus_ids is not None:
        known = isin(frame["doc_id"], corpus_ids)
        for q, d, line in frame.loc[keep & ~known, ["query_id", "doc_id", "line"]].itertuples(
            index=False
        ):
            log.add(
                int(line),
                f"doc id {d!r} (query {q!r}) is not in the corpus",
                field=doc_field,
                hint="fix the id or add the document to the corpus",
            )
    out = frame.loc[keep, ["query_id", "doc_id", "grade", "line"]].reset_index(drop=True)
    out = out.assign(grade=out["grade"].str.lstrip("+").astype("int64"))
    out.attrs["truncated_grades"] = truncated
    return out


def _log_duplicates(frame: pd.DataFrame, log: ProblemLog, doc_field: str) -> np.ndarray:
    """Mask of rows repeating an earlier row's (query, doc) pair; each one logged."""

    rows, firsts = repeated_ids(codes(frame["query_id"])[0], frame["doc_id"])
    dup = np.zeros(len(frame), dtype=bool)
    dup[rows] = True
    if not len(rows):
        return dup
    lines = frame["line"].to_numpy()
    queries, docs = frame["query_id"].to_numpy(object), frame["doc_id"].to_numpy(object)
    for row, first in zip(rows.tolist(), firsts.tolist(), strict=True):
        log.add(
            int(lines[row]),
            f"duplicate judgment of doc {docs[row]!r} for query {queries[row]!r} "
            f"(first seen on line {int(lines[first])})",
            field=doc_field,
            hint="keep one grade per document and query",
        )
    return dup


def _checked_grades(
    frame: pd.DataFrame, log: ProblemLog, grade_field: str, lenient: bool
) -> tuple[pd.DataFrame, np.ndarray, int]:
    """(frame, mask of whole-number grades, grades read with ``atol``); errors logged."""
    grades = frame["grade"]
    grade_ok = grades.str.fullmatch(r"[+-]?\d{1,18}").fillna(False).to_numpy(bool)
    if lenient and not grade_ok.all():
        lead = grades.str.extract(r"^\s*([+-]?\d{1,18})", expand=False).fillna("0")
        truncated = int(np.count_nonzero(~grade_ok))
        return frame.assign(grade=lead.str.lstrip("+")), np.ones(len(frame), bool), truncated
    for line, value in zip(frame["line"].to_numpy()[~grade_ok], grades[~grade_ok], strict=True):
        log.add(
            int(line),
            f"grade {value!r} is not a whole number (at most 18 digits)",
            field=grade_field,
            hint="write a whole number, e.g. 0, 1 or 2 (negative: judged non-relevant)",
        )
    return frame, grade_ok, 0


def isin(values: Any, allowed: Any) -> np.ndarray:
    """Boolean mask: which ``values`` (strings) are in ``allowed`` (pyarrow compute)."""
    import pyarrow.compute as pc

    allowed = list(allowed) if isinstance(allowed, set | frozenset) else allowed
    found = pc.is_in(arrow_text(values), value_set=arrow_text(allowed))
    return found.to_numpy(zero_copy_only=False).astype(bool, copy=False)


def assemble(
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    name: str,
    path: str | None,
    format: str,
    warnings: list[str] | None = None,
    unmarked_no_answer: bool = False,
) -> JudgmentSet:
    """Build the set from a ``query_id`` column frame and a qrels frame.

    With ``unmarked_no_answer`` (TREC, BEIR: formats that cannot mark a
    query), queries with no grade >= 1 are scored as trec_eval scores them (0
    on every ratio, counted in ``num_q``) and one warning counts them; the
    seed formats mark no-answer queries explicitly instead.
    """
    warnings = list(warnings or [])
    queries = queries.set_index("query_id")
    qrels = qrels[["query_id", "doc_id", "grade"]]
    if qrels["grade"].dtype != np.int64:
        qrels = qrels.astype({"grade": "int64"})
    if not qrels.index.equals(pd.RangeIndex(len(qrels))):
        qrels = qrels.reset_index(drop=True)
    if unmarked_no_answer:
        unmarked = _without_relevant(queries.index, qrels)
        if unmarked.any():
            warnings.append(
                f"{int(unmarked.sum())} queries have no relevant doc (no grade >= 1); they are "
                "scored as trec_eval scores them (0 on every ratio) and counted"
            )
    queries = queries.assign(no_answer=queries["no_answer"].astype(bool))
    return JudgmentSet(queries, qrels, name=name, path=path, format=format, warnings=warnings)


def _without_relevant(index: pd.Index, qrels: pd.DataFrame) -> np.ndarray:
    """Mask over the query ids ``index``: no grade >= 1 in ``qrels`` (by query codes,
    which the TREC reader has computed already)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found, count = codes(qrels["query_id"])
    positive, firsts = qrels["grade"].to_numpy() >= 1, first_rows(qrels["query_id"])
    if count and bool((found[1:] >= found[:-1]).all()):  # each query one block of rows
        relevant = np.logical_or.reduceat(positive, firsts)
    else:
        relevant = np.zeros(count, dtype=bool)
        relevant[found[positive]] = True
    column, ids = arrow_text(qrels["query_id"]), arrow_text(index)
    judged = column.take(pa.array(firsts))  # one id per code, in code order
    if len(ids) == count and pc.all(pc.equal(ids, judged)).as_py() is not False:
        return ~relevant
    return ~isin(index, judged.filter(pa.array(relevant)))
