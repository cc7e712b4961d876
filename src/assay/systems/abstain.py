"""Abstention: did the system return nothing confident when there was no answer?

A query *abstains* when its result list is empty or its top score is below a
threshold. On no-answer queries abstaining is right (abstention accuracy = the
share that abstained); on answerable queries it is a false abstention.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError

if TYPE_CHECKING:
    from assay.judgments.models import JudgmentSet
    from assay.runs.models import Run


@dataclass(frozen=True)
class AbstentionReport:
    """Counts and rates of abstention at one score threshold.

    Rates are ``None`` when their denominator is zero. Failed queries (given to
    :func:`abstention_report`) are excluded from both groups.
    """

    threshold: float
    no_answer_queries: int
    no_answer_abstained: int
    answerable_queries: int
    answerable_abstained: int
    abstained_ids: list[str] = field(default_factory=list)
    excluded_ids: list[str] = field(default_factory=list)

    @property
    def abstention_accuracy(self) -> float | None:
        """Share of no-answer queries on which the system abstained."""
        n = self.no_answer_queries
        return None if n == 0 else self.no_answer_abstained / n

    @property
    def false_abstention_rate(self) -> float | None:
        """Share of answerable queries on which the system abstained."""
        n = self.answerable_queries
        return None if n == 0 else self.answerable_abstained / n

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        return {
            "threshold": self.threshold,
            "no_answer_queries": self.no_answer_queries,
            "no_answer_abstained": self.no_answer_abstained,
            "abstention_accuracy": self.abstention_accuracy,
            "answerable_queries": self.answerable_queries,
            "answerable_abstained": self.answerable_abstained,
            "false_abstention_rate": self.false_abstention_rate,
            "abstained_ids": list(self.abstained_ids),
            "excluded_ids": list(self.excluded_ids),
        }


def abstention_report(
    run: Run,
    judgments: JudgmentSet,
    threshold: float,
    *,
    failed: Iterable[str] = (),
) -> AbstentionReport:
    """Score abstention of ``run`` at ``threshold`` against ``judgments``.

    A query abstains when it has no results in the run or its top score is
    below ``threshold``. Queries in ``failed`` (the system errored) are left
    out. Raises :class:`UsageError` when the run has results but no scores.
    """
    if not math.isfinite(threshold):
        raise UsageError(f"abstention threshold must be a finite number, got {threshold}")
    if len(run) and not run.has_scores:
        raise UsageError(
            f"run {run.name!r} has no scores, so abstention below a score cannot be judged; "
            "use a system or run file that returns scores"
        )
    top: dict[str, float] = {}
    if len(run):
        best = run.frame.groupby("query_id", sort=False, observed=True)["score"].max()
        top = {str(q): float(s) for q, s in best.items()}
    skip = set(failed)
    no_answer = set(judgments.no_answer_ids)
    counts = {"na": 0, "na_abs": 0, "ans": 0, "ans_abs": 0}
    abstained: list[str] = []
    excluded: list[str] = []
    for qid in judgments.query_ids:
        if qid in skip:
            excluded.append(qid)
            continue
        score = top.get(qid)
        abstains = score is None or score < threshold
        group = "na" if qid in no_answer else "ans"
        counts[group] += 1
        if abstains:
            counts[group + "_abs"] += 1
            abstained.append(qid)
    return AbstentionReport(
        threshold=float(threshold),
        no_answer_queries=counts["na"],
        no_answer_abstained=counts["na_abs"],
        answerable_queries=counts["ans"],
        answerable_abstained=counts["ans_abs"],
        abstained_ids=abstained,
        excluded_ids=excluded,
    )
