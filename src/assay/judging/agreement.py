"""Agreement between assessors (Cohen's kappa per pair of people, per query class).

:func:`cohen_kappa` is the one statistic here, kept in one function so that it
can be swapped for the project's judge-agreement code when that lands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from assay.judging.outcome import PairOutcome, outcomes
from assay.judging.store import JudgingStore
from assay.judgments.models import TAG_SEPARATOR


def cohen_kappa(a: Sequence[int], b: Sequence[int]) -> float | None:
    """Cohen's (unweighted) kappa of two raters' labels on the same items.

    ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from each rater's own label
    frequencies. ``None`` with no items; 1.0 when both raters used one and the
    same label throughout (``p_e = 1``, perfect agreement).
    """
    if len(a) != len(b):
        raise ValueError("both raters must label the same items")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if expected == 1.0:
        return 1.0
    return (observed - expected) / (1.0 - expected)


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
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / len(a) if a else None
    return PairAgreement(group, first, second, len(a), observed, cohen_kappa(a, b))


def agreement_report(store: JudgingStore) -> AgreementReport:
    """Kappa per assessor pair on the pairs both graded, overall and per ``query_class``."""
    every = outcomes(store)
    people = sorted({p for o in every for p in o.grades})
    overall = [_agree("all", x, y, every) for x, y in combinations(people, 2)]
    classes: dict[str, list[PairOutcome]] = {}
    for o in every:
        value = o.pair.notes.get("query_class", "")
        tags = [t.strip() for t in value.split(TAG_SEPARATOR) if t.strip()] or ["(none)"]
        for tag in dict.fromkeys(tags):
            classes.setdefault(tag, []).append(o)
    by_class = [
        _agree(tag, x, y, items)
        for tag, items in sorted(classes.items())
        for x, y in combinations(people, 2)
    ]
    by_class = [r for r in by_class if r.items]
    disputed = [o for o in every if o.disputed]
    return AgreementReport([r for r in overall if r.items], by_class, disputed)
