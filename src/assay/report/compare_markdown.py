"""Render a :class:`ComparisonResult` as compact Markdown for a pull-request comment."""

from __future__ import annotations

from assay.report.compare_common import (
    MARKS,
    effect,
    interval,
    num,
    pval,
    settings_line,
    signed,
)
from assay.stats.models import ComparisonResult


def _cell(text: str) -> str:
    from assay.report.escape import md_cell

    return md_cell(text)


def render_markdown(result: ComparisonResult) -> str:
    """A Markdown summary: one row per candidate x metric, then slices with a verdict."""
    lines = [
        f"### assay compare: vs `{_cell(result.baseline)}` on {_cell(result.judgments_name)} "
        f"(`{result.judgments_version}`)",
        "",
        "| system | metric | n | baseline | candidate | Δ | 95% CI | p | p (Holm) | d "
        "| W/L/T | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in result.comparisons:
        lines.append(
            f"| {_cell(c.candidate)} | {_cell(c.metric)} | {c.n} | {num(c.baseline_mean)} | "
            f"{num(c.candidate_mean)} | {signed(c.delta)} | {interval(c)} | "
            f"{pval(c.p_value)} | {pval(c.p_adjusted)} | {effect(c.effect_size)} | "
            f"{c.wins}/{c.losses}/{c.ties} | {MARKS[c.verdict]} |"
        )
    flagged = [s for s in result.slices if s.verdict != "no detectable difference"]
    if flagged:
        lines += [
            "",
            "**Slices with a detectable change**",
            "",
            "| slice | n | system | metric | Δ | 95% CI | p | p (Holm) | d | verdict |",
            "|---|---:|---|---|---:|---:|---:|---:|---:|---|",
        ]
        for s in flagged:
            lines.append(
                f"| {_cell(s.field)}={_cell(s.value)} | {s.n} | {_cell(s.candidate)} | "
                f"{_cell(s.metric)} | {signed(s.delta)} | {interval(s)} | {pval(s.p_value)} | "
                f"{pval(s.p_adjusted)} | {effect(s.effect_size)} | {MARKS[s.verdict]} |"
            )
    lines += [
        "",
        "<sub>p: paired test; p (Holm): Holm-adjusted, decides the verdict; d: effect size "
        "(mean Δ / sd of Δ); W/L/T: queries won/lost/tied by the candidate</sub>",
        "",
        f"<sub>{_cell(settings_line(result))}</sub>",
    ]
    lines += [f"> ⚠ {_cell(w)}" for w in result.warnings]
    return "\n".join(lines) + "\n"
