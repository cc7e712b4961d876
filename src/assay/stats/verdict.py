"""The verdict of a paired comparison, decided in one place.

Every comparison (runs, slices, generation-matrix variants) turns a difference
and its Holm-adjusted p-value into a :class:`Verdict` here; renderers compare
the enum members, never the words.
"""

from __future__ import annotations

from enum import StrEnum

#: Differences within this distance of 0 count as ties.
TIE_TOLERANCE = 1e-12


class Verdict(StrEnum):
    """Outcome of one paired comparison; the value is the word written in result files."""

    BETTER = "better"
    WORSE = "worse"
    NO_DIFFERENCE = "no detectable difference"


def verdict(delta: float, p_adjusted: float, alpha: float) -> Verdict:
    """The verdict of a difference ``delta`` (candidate minus baseline) at level ``alpha``.

    A difference counts only when its adjusted p-value is below ``alpha`` and it
    is farther than :data:`TIE_TOLERANCE` from zero.
    """
    if p_adjusted < alpha and delta > TIE_TOLERANCE:
        return Verdict.BETTER
    if p_adjusted < alpha and delta < -TIE_TOLERANCE:
        return Verdict.WORSE
    return Verdict.NO_DIFFERENCE
