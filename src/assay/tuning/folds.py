"""Cross-validation over queries: folds dealt at random (seeded, stratified), a choice per
fold made on the other folds, scored on the fold held out.

Everything here works on one array of per-query values, ``values[set, measure, query]``;
it runs no system and scores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.core.errors import UsageError
from assay.stats.verdict import TIE_TOLERANCE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def deal(n_queries: int, folds: int, seed: int, strata: Sequence[str] | None = None) -> list[int]:
    """The fold of each query: each stratum shuffled (seeded) and dealt round-robin, the deal
    carried on from one stratum to the next, so folds differ in size by one at most and each
    stratum is spread over them as evenly as it can be."""
    import numpy as np

    if folds < 2:
        raise UsageError(f"--folds must be 2 or more (got {folds})", "--folds")
    if n_queries < folds:
        raise UsageError(f"--folds {folds} is more than the {n_queries} queries", "--folds")
    labels = list(strata) if strata is not None else [""] * n_queries
    rng = np.random.default_rng(seed)
    out = [0] * n_queries
    turn = 0
    for stratum in sorted(set(labels)):
        members = [i for i, s in enumerate(labels) if s == stratum]
        for i in rng.permutation(members):
            out[int(i)] = turn % folds
            turn += 1
    return out


@dataclass(frozen=True)
class FoldOutcome:
    """One fold: the set chosen on the other folds, its training mean (per measure) and its
    held-out mean (per measure)."""

    fold: int
    queries: list[int]
    chosen: int
    train: list[float]
    held_out: list[float]


def best(means: np.ndarray) -> int:
    """The set with the highest mean; a tie (means within
    :data:`~assay.stats.verdict.TIE_TOLERANCE`, as paired differences count ties) goes to
    the first in grid order, whatever order the sums were added in."""
    import numpy as np

    top = np.nanmax(means)
    return int(np.flatnonzero(means >= top - TIE_TOLERANCE)[0])


def cross_validate(values: np.ndarray, fold_of: Sequence[int]) -> list[FoldOutcome]:
    """For each fold, the set with the best mean objective (measure 0) on the other folds,
    with its training and held-out means of every measure."""
    import numpy as np

    assignment = np.asarray(fold_of)
    out = []
    for fold in range(int(assignment.max()) + 1):
        test = assignment == fold
        train_means = np.nanmean(values[:, :, ~test], axis=2)  # sets x measures
        chosen = best(train_means[:, 0])
        out.append(
            FoldOutcome(
                fold=fold,
                queries=[int(i) for i in np.flatnonzero(test)],
                chosen=chosen,
                train=[float(v) for v in train_means[chosen]],
                held_out=[float(v) for v in np.nanmean(values[chosen][:, test], axis=1)],
            )
        )
    return out


def optimism(outcomes: list[FoldOutcome]) -> list[float]:
    """Per measure: the mean over folds of the chosen set's training mean minus its
    held-out mean."""
    import numpy as np

    gaps = np.asarray([[t - h for t, h in zip(o.train, o.held_out, strict=True)] for o in outcomes])
    return [float(v) for v in gaps.mean(axis=0)]
