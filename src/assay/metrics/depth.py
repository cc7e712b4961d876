"""Cutoffs deeper than the ranking: an error for a live system, a warning for a run file.

A measure at cutoff k over a ranking of fewer than k documents is still
defined (the missing ranks count as not retrieved), but it is not what its name
says: ``R@1000`` over a system asked for 100 results is ``R@100``. A live system
can be asked again, deeper, so that is an error naming the ``k`` needed; a run
file is what it is, so a warning says how deep it goes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.core.errors import UsageError
from assay.metrics.measures import Measure, parse_measure

if TYPE_CHECKING:  # pragma: no cover
    from assay.runs.blocks import RunBlocks
    from assay.runs.models import Run


def deepest_cutoff(measures: Iterable[Measure | str]) -> Measure | None:
    """The measure with the largest rank cutoff, or ``None`` when none has one."""
    cut = [m for m in (parse_measure(x) for x in measures) if m.cutoff is not None]
    return max(cut, key=lambda m: m.cutoff or 0) if cut else None


def check_depth(
    measures: Iterable[Measure | str],
    *,
    asked: int | None = None,
    run: Run | RunBlocks | None = None,
) -> list[str]:
    """Check that rankings reach every cutoff of ``measures``.

    ``asked`` is the depth a live system is (or was) asked for: a deeper cutoff
    raises :class:`UsageError` naming the ``k`` needed. ``run`` is a loaded run
    (a file): returns one warning when its longest ranking is shorter than a
    cutoff, else no warning.
    """
    deepest = deepest_cutoff(measures)
    if deepest is None or deepest.cutoff is None:
        return []
    if asked is not None and asked < deepest.cutoff:
        raise UsageError(
            f"{deepest.name} needs rankings of {deepest.cutoff} documents but the system is "
            f"asked for {asked}: pass k={deepest.cutoff} (-k {deepest.cutoff}) or more"
        )
    if run is None or asked is not None or len(run) == 0:
        return []
    longest = run.longest
    if longest >= deepest.cutoff:
        return []
    return [
        f"{deepest.name}: the run lists at most {longest} "
        f"{'document' if longest == 1 else 'documents'} per query; ranks "
        f"{longest + 1}-{deepest.cutoff} count as not retrieved"
    ]
