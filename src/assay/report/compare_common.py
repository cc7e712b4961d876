"""Number formatting shared by the comparison renderers (no statistics here)."""

from __future__ import annotations

from assay.stats.models import ComparisonResult, Stat

#: Verdict -> short marker for compact tables.
MARKS = {"better": "▲ better", "worse": "▼ worse", "no detectable difference": "= no diff"}


def num(value: float | None, digits: int = 4) -> str:
    """A value with ``digits`` decimals; an en dash for ``None``."""
    return "–" if value is None else f"{value:.{digits}f}"


def signed(value: float, digits: int = 4) -> str:
    """A difference with an explicit sign."""
    return f"{value:+.{digits}f}"


def pval(value: float) -> str:
    """A p-value: 4 decimals, or ``<0.0001``."""
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def interval(stat: Stat, digits: int = 4) -> str:
    """``[low, high]`` of a stat's confidence interval."""
    return f"[{stat.ci_low:+.{digits}f}, {stat.ci_high:+.{digits}f}]"


def settings_line(result: ComparisonResult) -> str:
    """One line saying how the numbers were computed."""
    s = result.settings
    ci = "BCa" if s.ci_method == "bca" else "percentile"
    return (
        f"{result.n_queries} paired queries; baseline {result.baseline}; test {s.test} "
        f"({s.p_value_method}); Holm-adjusted across {len(result.comparisons)} comparisons; "
        f"alpha {s.alpha}; {int(s.confidence * 100)}% {ci} bootstrap CI "
        f"({s.n_resamples} resamples); seed {s.seed}"
    )
