"""Render a :class:`ComparisonResult` as compact Markdown for a pull-request comment."""

from __future__ import annotations

from assay.report.compare_common import MARKS, interval, num, pval, settings_line, signed
from assay.stats.models import ComparisonResult


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(result: ComparisonResult) -> str:
    """A Markdown summary: one row per candidate x metric, then slices with a verdict."""
    lines = [
        f"### assay compare: vs `{_cell(result.baseline)}` on {_cell(result.judgments_name)} "
        f"(`{result.judgments_version}`)",
        "",
        "| system | metric | baseline | candidate | Δ | 95% CI | p (Holm) | W/L/T | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in result.comparisons:
        lines.append(
            f"| {_cell(c.candidate)} | {c.metric} | {num(c.baseline_mean)} | "
            f"{num(c.candidate_mean)} | {signed(c.delta)} | {interval(c)} | "
            f"{pval(c.p_adjusted)} | {c.wins}/{c.losses}/{c.ties} | {MARKS[c.verdict]} |"
        )
    flagged = [s for s in result.slices if s.verdict != "no detectable difference"]
    if flagged:
        lines += [
            "",
            "**Slices with a detectable change**",
            "",
            "| slice | n | system | metric | Δ | 95% CI | p (Holm) | verdict |",
            "|---|---:|---|---|---:|---:|---:|---|",
        ]
        for s in flagged:
            lines.append(
                f"| {_cell(s.field)}={_cell(s.value)} | {s.n} | {_cell(s.candidate)} | "
                f"{s.metric} | {signed(s.delta)} | {interval(s)} | {pval(s.p_adjusted)} | "
                f"{MARKS[s.verdict]} |"
            )
    lines += ["", f"<sub>{_cell(settings_line(result))}</sub>"]
    lines += [f"> ⚠ {_cell(w)}" for w in result.warnings]
    return "\n".join(lines) + "\n"
