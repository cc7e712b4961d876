"""Label tables: one row per judged (query, document) pair, with who gave the label.

Agreement, review samples and calibration work on any label source alike:

* any judgment set :func:`assay.judgments.load_judgments` reads (TREC qrels,
  JSONL, CSV, BEIR...): ``source`` and ``assessor`` come from the query's
  metadata when present;
* a **pair-label file** (JSON lines, one pair per line: ``query_id``, ``doc_id``,
  ``grade``, optional ``source``, ``assessor``, ``query`` and other keys), which
  ``assay judge llm`` writes;
* a **review file** written by ``assay judge sample`` (``reviewer_grade`` per
  line; lines the reviewer has not filled yet are counted, not used).

:func:`read_labels` tells the three apart by the first JSON line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import InputError, Problem, ProblemLog, _StopCollecting
from assay.io.formats import detect_pairs
from assay.io.textio import json_lines, read_text
from assay.judges.sources import resolve_sources, source_counts
from assay.judgments.load import load_judgments
from assay.judgments.models import LABEL_SOURCES, JudgmentSet

#: Columns of :attr:`LabelTable.frame` always present.
COLUMNS = ("query_id", "doc_id", "grade", "source", "assessor")
#: Query metadata columns carried into the table when the source has them.
GROUP_FIELDS = ("language", "query_class")


@dataclass
class LabelTable:
    """Labels of (query, doc) pairs: ``frame`` has :data:`COLUMNS` plus extras.

    ``kind`` is ``judgments``, ``labels`` or ``review``; ``pending`` counts
    review lines without a reviewer grade; ``texts`` maps query ids to text.
    """

    frame: Any
    name: str
    path: str | None = None
    kind: str = "labels"
    pending: int = 0
    texts: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.frame)

    def sources(self) -> dict[str, int]:
        """How many labels each source gave (``unknown`` when not stated)."""

        return source_counts(self.frame)


def read_labels(
    path: str | Path,
    format: str | None = None,
    *,
    prefer: str | None = None,
    queries: str | Path | None = None,
) -> LabelTable:
    """Read a judgment set, a pair-label file or a review file as a :class:`LabelTable`.

    ``queries`` is the queries file of TREC qrels (as for ``load_judgments``).

    A pair labelled by several sources (a person and a model) is refused unless
    ``prefer`` names the source that wins (:func:`assay.judges.sources.resolve_sources`).
    """
    from dataclasses import replace

    p = Path(path)
    if not p.exists():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])
    kind = format or _sniff(p)
    if kind in ("labels", "review"):
        table = _read_pairs(p, kind)
        frame = resolve_sources(table.frame, prefer=prefer, where=str(p))
        return replace(table, frame=frame.reset_index(drop=True))
    fmt = format if format not in (None, "judgments") else None
    return from_judgments(_load_set(p, fmt, queries))


def is_label_file(path: str | Path) -> bool:
    """True for a pair-label or review file (one pair per JSON line), not a judgment set."""
    return _sniff(Path(path)) in ("labels", "review")


def labels_as_judgments(path: str | Path, *, prefer: str | None = None) -> Any:
    """A pair-label or review file as a :class:`~assay.judgments.JudgmentSet` for metrics.

    Human and model labels of the same pair are refused unless ``prefer`` says
    which wins (:func:`assay.judges.sources.resolve_sources`).
    """
    table = read_labels(path, prefer=prefer)
    judgments = to_judgments(table)
    judgments.path = str(path)
    judgments.format = table.kind
    judgments.prefer = prefer  # the label source that won: a scoring policy of every report
    return judgments


def from_judgments(judgments: Any, name: str | None = None) -> LabelTable:
    """A label table of a :class:`~assay.judgments.JudgmentSet` (query metadata joined)."""
    import pandas as pd

    frame = judgments.qrels[["query_id", "doc_id", "grade"]].copy()
    meta = judgments.queries
    for column in ("source", "assessor", *GROUP_FIELDS):
        if column in meta.columns:
            frame[column] = frame["query_id"].map(meta[column]).astype(object)
        elif column in ("source", "assessor"):
            frame[column] = pd.Series([None] * len(frame), dtype=object, index=frame.index)
    texts = {str(k): str(v) for k, v in meta["text"].items()}
    return LabelTable(
        frame.reset_index(drop=True),
        name or judgments.name,
        judgments.path,
        "judgments",
        texts=texts,
    )


def to_judgments(table: LabelTable, name: str | None = None) -> Any:
    """A :class:`~assay.judgments.JudgmentSet` of a label table (for metrics)."""
    import pandas as pd

    frame = table.frame
    qids = list(dict.fromkeys(frame["query_id"].tolist()))
    rows: dict[str, dict[str, Any]] = {q: {"text": table.texts.get(q, "")} for q in qids}
    for column in ("source", "assessor", *GROUP_FIELDS):
        if column in frame.columns:
            firsts = frame.groupby("query_id", sort=False)[column].first()
            for q, v in firsts.items():
                rows[q][column] = None if v is None or pd.isna(v) else str(v)
    queries = pd.DataFrame.from_dict(rows, orient="index")
    queries.index.name = "query_id"
    queries.insert(1, "no_answer", False)
    qrels = frame[["query_id", "doc_id", "grade"]].astype({"grade": "int64"})
    if "source" in frame.columns:  # who labelled each pair (JudgmentSet.label_sources)
        qrels = qrels.assign(source=frame["source"].astype(object))
    return JudgmentSet(queries, qrels.reset_index(drop=True), name=name or table.name)


def _load_set(p: Path, fmt: str | None, queries: str | Path | None = None) -> Any:

    return load_judgments(p, fmt) if queries is None else load_judgments(p, fmt, queries=queries)


def _sniff(p: Path) -> str:
    """``labels`` or ``review`` for a pair-per-line file (:func:`assay.io.formats.detect_pairs`)."""

    return detect_pairs(p) or "judgments"


def _read_pairs(p: Path, kind: str) -> LabelTable:
    import pandas as pd

    log = ProblemLog(str(p))
    rows: list[dict[str, Any]] = []
    texts: dict[str, str] = {}
    pending = 0
    try:
        text = read_text(p, log)
        seen: dict[tuple[str, str, str], int] = {}
        for number, obj in json_lines(text or "", log, what="label"):
            row = _pair(obj, number, kind, log, seen)
            if row is None:
                pending += int(kind == "review" and obj.get("reviewer_grade") is None)
                continue
            if isinstance(obj.get("query"), str):
                texts.setdefault(row["query_id"], obj["query"])
            rows.append(row)
    except _StopCollecting:
        pass
    log.raise_if_any()
    extras = sorted({k for r in rows for k in r} - set(COLUMNS))
    frame = pd.DataFrame(rows, columns=[*COLUMNS, *extras]).astype({"grade": "int64"})
    return LabelTable(frame, p.stem, str(p), kind, pending, texts)


_PAIR_SKIP = {"query", "doc_text", "reviewer_grade", "model_grade", "reason"}


def _pair(
    obj: dict[str, Any], line: int, kind: str, log: Any, seen: dict[tuple[str, str, str], int]
) -> dict[str, Any] | None:
    """One label row of a pair-label or review line, or ``None`` (logged or pending)."""
    qid, doc = obj.get("query_id"), obj.get("doc_id")
    for key, value in (("query_id", qid), ("doc_id", doc)):
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            log.add(line, f"{key} must be a non-empty string, found {value!r}", field=key)
            return None
    qid, doc = str(qid), str(doc)
    key = "reviewer_grade" if kind == "review" else "grade"
    grade = obj.get(key)
    if grade is None and kind == "review":
        return None
    if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
        log.add(
            line,
            f"grade {grade!r} is not a non-negative integer",
            field=key,
            hint="a grade is an integer >= 0 without quotes, e.g. 2",
        )
        return None
    source = obj.get("source", "human" if kind == "review" else None)
    key3 = (qid, doc, str(source))
    if key3 in seen:
        log.add(
            line,
            f"duplicate pair ({qid!r}, {doc!r}) (first seen on line {seen[key3]})",
            field="doc_id",
            hint="keep one label per pair and source",
        )
        return None
    seen[key3] = line
    if source is not None and source not in LABEL_SOURCES:
        log.add(
            line,
            f"source {source!r} is not one of {', '.join(LABEL_SOURCES)}",
            field="source",
        )
        return None
    row = {"query_id": qid, "doc_id": doc, "grade": grade, "source": source}
    row["assessor"] = obj.get("reviewer") if kind == "review" else obj.get("assessor")
    for k, v in obj.items():
        if k not in row and k not in _PAIR_SKIP and k not in ("grade", "reviewer"):
            row[k] = v if isinstance(v, str | int | float | bool) or v is None else json.dumps(v)
    if kind == "review" and isinstance(obj.get("reason"), str):
        row["reason"] = obj["reason"]
    return row
