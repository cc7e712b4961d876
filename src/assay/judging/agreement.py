"""Agreement between assessors (Cohen's kappa per pair of people, per query class).

The statistics are those of ``assay judge agree`` (:func:`assay.judges.stats.pair_stats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from assay.core.tags import split_tags
from assay.judges.stats import pair_stats
from assay.judging.outcome import PairOutcome, outcomes
from assay.judging.store import JudgingStore


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two assessors on the pairs both graded (``group`` a query class or all)."""

    group: str
    first: str
    second: str
    items: int
    observed: float | None
    kappa: float | None


@dataclass(frozen=True)
class AgreementReport:
    """Agreement per assessor pair, overall and per query class; the disputed pairs."""

    overall: list[PairAgreement]
    by_class: list[PairAgreement]
    disagreements: list[PairOutcome]


def _agree(group: str, first: str, second: str, items: list[PairOutcome]) -> PairAgreement:
    a, b = [], []
    for o in items:
        grades = o.grades
        if first in grades and second in grades:
            a.append(grades[first])
            b.append(grades[second])
    if not a:
        return PairAgreement(group, first, second, 0, None, None)
    stats = pair_stats(a, b)
    return PairAgreement(group, first, second, stats.n, stats.accuracy, stats.cohen_kappa)


def agreement_report(store: JudgingStore) -> AgreementReport:
    """Kappa per assessor pair on the pairs both graded, overall and per ``query_class``."""
    every = outcomes(store)
    people = sorted({p for o in every for p in o.grades})
    overall = [_agree("all", x, y, every) for x, y in combinations(people, 2)]
    classes: dict[str, list[PairOutcome]] = {}
    for o in every:
        for tag in split_tags(o.pair.notes.get("query_class")):
            classes.setdefault(tag, []).append(o)
    by_class = [
        _agree(tag, x, y, items)
        for tag, items in sorted(classes.items())
        for x, y in combinations(people, 2)
    ]
    by_class = [r for r in by_class if r.items]
    disputed = [o for o in every if o.disputed]
    return AgreementReport([r for r in overall if r.items], by_class, disputed)
