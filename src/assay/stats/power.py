"""Effect size and power of a paired comparison.

Power figures use the **normal approximation** to the two-sided paired test of
the mean difference: with ``sd`` the standard deviation of the paired
differences (ddof 1), ``n`` queries, ``z_a = z(1 - alpha/2)`` and
``z_b = z(power)``,

* minimum detectable difference ``= (z_a + z_b) * sd / sqrt(n)``;
* queries needed to detect ``delta`` ``= ceil(((z_a + z_b) * sd / delta) ** 2)``.

At alpha 0.05 and power 0.8, ``z_a + z_b = 1.960 + 0.842 = 2.802``. The paired t
test needs slightly more queries when ``n`` is small (under ~30).

When the differences do not vary (``sd`` at most :data:`SD_TOLERANCE`, e.g. no
query differs at all) the normal approximation says nothing useful: the
figures are not estimable and come back as ``None`` rather than 0 and 2.
"""

from __future__ import annotations

import math
from typing import Any

from assay.core.bounds import level
from assay.core.errors import UsageError

#: A standard deviation at or below this counts as zero (floating-point noise).
SD_TOLERANCE = 1e-12


def effect_size(diffs: Any) -> float | None:
    """Standardised mean difference ``mean(d) / sd(d)`` (ddof 1; Cohen's d_z).

    0.0 when every difference is zero; ``None`` when the sd is 0 (at most
    :data:`SD_TOLERANCE`) but the mean is not (the ratio is unbounded) or when
    there are fewer than 2 values and the mean is non-zero.
    """
    import numpy as np

    d = np.asarray(diffs, dtype=float).ravel()
    if d.size == 0:
        return None
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if d.size > 1 else 0.0
    if sd <= SD_TOLERANCE:
        return 0.0 if abs(mean) <= SD_TOLERANCE else None
    return mean / sd


def _z_sum(alpha: float, power: float) -> float:
    from scipy import stats

    level("alpha", alpha)
    level("power", power)
    return float(stats.norm.ppf(1.0 - alpha / 2.0) + stats.norm.ppf(power))


def minimum_detectable_difference(
    sd: float, n: int, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest true mean difference detected with ``power`` at ``alpha`` (normal approx.).

    ``None`` when ``n`` is 0 or ``sd`` is 0 (not estimable).
    """
    if n <= 0 or float(sd) <= SD_TOLERANCE:
        return None
    return _z_sum(alpha, power) * float(sd) / math.sqrt(n)


def queries_needed(
    sd: float, delta: float = 0.02, *, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """Queries needed to detect a true mean difference ``delta`` (normal approx.).

    At least 2 (a paired test needs two queries); ``None`` when ``sd`` is 0
    (not estimable: the differences give no spread to extrapolate from).
    """
    if delta == 0:
        raise UsageError("the difference to detect must not be zero")
    if float(sd) <= SD_TOLERANCE:
        return None
    need = math.ceil((_z_sum(alpha, power) * float(sd) / abs(delta)) ** 2 - 1e-9)
    return max(2, need)
