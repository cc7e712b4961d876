"""Number formatting shared by the comparison renderers (no statistics here)."""

from __future__ import annotations

from assay.core.words import count
from assay.report.digits import metric_digits
from assay.stats.corrections import LABELS
from assay.stats.models import ComparisonResult, PowerEstimate, QueryDelta, Stat
from assay.stats.verdict import Verdict

#: Verdict -> short marker for compact tables.
MARKS = {Verdict.BETTER: "▲ better", Verdict.WORSE: "▼ worse", Verdict.NO_DIFFERENCE: "= no diff"}
#: Verdict -> CSS class of HTML reports.
CSS_CLASS = {Verdict.BETTER: "better", Verdict.WORSE: "worse", Verdict.NO_DIFFERENCE: "nodiff"}


def num(value: float | None, digits: int = 4, metric: str | None = None) -> str:
    """A value of ``metric`` with ``digits`` decimals (a count's whole); en dash for ``None``."""
    return "–" if value is None else f"{value:.{metric_digits(metric, digits, value)}f}"


def signed(value: float, digits: int = 4, metric: str | None = None) -> str:
    """A difference of ``metric`` with an explicit sign (a count's whole)."""
    return f"{value:+.{metric_digits(metric, digits, value)}f}"


def pval(value: float) -> str:
    """A p-value: 4 decimals, or ``<0.0001``."""
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def effect(value: float | None) -> str:
    """An effect size (Cohen's d_z) with 2 decimals; an en dash when unbounded."""
    return num(value, 2)


def power_cells(power: PowerEstimate) -> tuple[str, str, str]:
    """``(sd of diffs, min detectable delta, queries needed)`` as display strings.

    Figures the model marks as not estimable read ``n/a (<reason>)`` and ``n/a``
    instead of a misleading 0 and 2.
    """
    sd = num(power.sd_diff)
    if power.not_estimable or power.min_detectable_delta is None:
        reason = power.not_estimable or "not estimable"
        return sd, f"n/a ({reason})", "n/a"
    queries = "n/a" if power.queries_needed is None else str(power.queries_needed)
    return sd, num(power.min_detectable_delta), queries


def ranks(query: QueryDelta) -> str:
    """First relevant rank in the baseline and in the candidate: ``3 → 1``."""
    base = "–" if query.baseline_rank is None else query.baseline_rank
    cand = "–" if query.candidate_rank is None else query.candidate_rank
    return f"{base} → {cand}"


def interval(stat: Stat, digits: int = 4) -> str:
    """``[low, high]`` of a stat's confidence interval (a count's in whole numbers)."""
    return (
        f"[{signed(stat.ci_low, digits, stat.metric)}, {signed(stat.ci_high, digits, stat.metric)}]"
    )


def correction_label(result: ComparisonResult) -> str:
    """The name of the result's multiple-testing correction (``Holm``, ``BH``...)."""

    return LABELS.get(result.settings.adjustment, result.settings.adjustment)


def adjusted_header(result: ComparisonResult) -> str:
    """The header of the adjusted p-value column: ``p Holm``, ``p BH``..."""
    return f"p {correction_label(result)}"


def adjusted_note(result: ComparisonResult) -> str:
    """What the adjusted p-value column holds, for captions: ``p Holm: Holm-adjusted p``."""
    name = correction_label(result)
    if result.settings.adjustment == "none":
        return f"p {name}: the p-value without multiple-testing correction"
    return f"p {name}: {name}-adjusted p"


def settings_line(result: ComparisonResult) -> str:
    """One line saying how the numbers were computed."""
    s = result.settings
    ci = "BCa" if s.ci_method == "bca" else "percentile"
    adjusted = (
        "no multiple-testing correction over"
        if s.adjustment == "none"
        else f"{correction_label(result)}-adjusted across"
    )
    several = list(dict.fromkeys(c.baseline for c in result.comparisons if c.baseline))
    against = f"baselines {', '.join(several)}" if several else f"baseline {result.baseline}"
    return (
        f"{count(result.n_queries, 'paired query')}; {against}; test "
        f"{s.test} ({s.p_value_method}); {adjusted} "
        f"{count(len(result.comparisons), 'comparison')}; "
        f"alpha {s.alpha}; {int(s.confidence * 100)}% {ci} bootstrap CI "
        f"({s.n_resamples} resamples); seed {s.seed}"
    )
