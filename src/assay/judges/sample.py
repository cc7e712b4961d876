"""Review samples (seed 003's 20%): the labels a person checks, stratified and reproducible.

:func:`review_sample` picks ``fraction`` of the labels in every stratum (at
least one per stratum), with a seeded generator over pairs sorted by
(query id, doc id), so the same labels, fraction and seed give the same sample
whatever the file order. The written review file holds the pairs with an
empty ``reviewer_grade`` and ``reason`` for the reviewer; the label being
checked is hidden unless ``show_grades`` (a reviewer who sees it tends to
agree with it). ``assay judge agree LABELS REVIEW`` then measures agreement.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.io.fileio import write_text_atomic
from assay.judges.labels import LabelTable, read_labels

#: Fields a sample may be stratified by.
STRATA = ("grade", "source", "query_id", "language", "query_class", "none")


def review_sample(
    labels: LabelTable | str | Path,
    *,
    fraction: float = 0.2,
    stratify: str = "grade",
    seed: int = 0,
    show_grades: bool = False,
    corpus: Any = None,
    queries: str | Path | None = None,
) -> list[dict[str, Any]]:
    """The review lines of a stratified random sample of ``labels``.

    ``queries`` gives the query texts TREC qrels lack (TSV ``id<TAB>text`` or JSONL).
    """
    import numpy as np

    table = labels if isinstance(labels, LabelTable) else read_labels(labels, queries=queries)
    if not 0 < fraction <= 1:
        raise UsageError(f"--fraction must be in (0, 1], got {fraction}")
    if stratify not in STRATA:
        raise UsageError(f"--stratify must be one of {', '.join(STRATA)}, got {stratify!r}")
    frame = table.frame.sort_values(["query_id", "doc_id"], kind="stable").reset_index(drop=True)
    if stratify != "none" and stratify not in frame.columns:
        raise UsageError(f"{table.name} has no field {stratify!r} to stratify by")
    keys = (
        np.zeros(len(frame), dtype=np.int64)
        if stratify == "none"
        else frame[stratify].astype(str).fillna("(none)").to_numpy()
    )
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    for key in sorted(set(keys.tolist()), key=str):
        rows = np.flatnonzero(keys == key)
        take = max(1, math.floor(fraction * len(rows) + 0.5))
        chosen.extend(rng.choice(rows, size=min(take, len(rows)), replace=False).tolist())
    texts = {} if corpus is None else dict(zip(corpus.ids, corpus.texts(), strict=True))
    out = []
    for i in sorted(chosen):
        row = frame.iloc[i]
        line: dict[str, Any] = {"query_id": row["query_id"], "doc_id": row["doc_id"]}
        if row["query_id"] in table.texts:
            line["query"] = table.texts[row["query_id"]]
        if texts:
            line["doc_text"] = texts.get(row["doc_id"])
        if show_grades:
            line["model_grade"] = int(row["grade"])
        line["label_source"] = None if _missing(row["source"]) else str(row["source"])
        line["reviewer_grade"] = None
        line["reason"] = ""
        out.append(line)
    return out


def missing_query_texts(lines: list[dict[str, Any]]) -> str | None:
    """A warning when review lines have no query text, saying how to give them; else None."""
    blank = sum(1 for line in lines if not line.get("query"))
    if not blank:
        return None
    return (
        f"{blank} of {len(lines)} pairs have no query text (TREC qrels carry none): "
        "a reviewer cannot judge them; pass `queries` (a TSV of id and text, or JSONL)"
    )


def write_review(lines: list[dict[str, Any]], path: str | Path) -> None:
    """Write review lines as JSONL (atomically)."""

    write_text_atomic(path, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
