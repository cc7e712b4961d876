"""Pairs judged both by people (or a model) and by behaviour: the input of an agreement figure.

``assay judge agree`` computes agreement statistics between two judgment sets;
this module only finds the pairs they share, so that implicit judgments can be
compared with a reference set on exactly the documents both graded.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class OverlapPair(NamedTuple):
    """One (query, document) graded in both sets."""

    query_id: str
    doc_id: str
    reference: int
    implicit: int


def overlapping_pairs(reference: Any, implicit: Any) -> list[OverlapPair]:
    """The pairs graded in both judgment sets, in ``reference`` order.

    Both are :class:`~assay.judgments.JudgmentSet`; their query ids must use the
    same key (SRW files and behaviour logs both key queries by the normalised
    text, :func:`assay.core.querytext.query_id_for`).
    """
    import pandas as pd

    ref = reference.qrels[["query_id", "doc_id", "grade"]]
    imp = implicit.qrels[["query_id", "doc_id", "grade"]]
    both = pd.merge(ref, imp, on=["query_id", "doc_id"], how="inner", suffixes=("_r", "_i"))
    return [
        OverlapPair(str(q), str(d), int(r), int(i))
        for q, d, r, i in zip(
            both["query_id"], both["doc_id"], both["grade_r"], both["grade_i"], strict=True
        )
    ]
