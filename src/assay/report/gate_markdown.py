"""Markdown rendering of a gate result (a pull-request comment)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.policies import policy_lines
from assay.report.table import markdown_rows

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.gate_result import GateCheck, GateResult


def _status(check: GateCheck) -> str:
    if not check.gated:
        return "not gated"
    return "pass" if check.passed else "**regression**"


def _cell(text: str) -> str:
    from assay.report.escape import md_cell

    return md_cell(text)


def render_markdown(result: GateResult) -> str:
    """The gate's verdict, rule, one table row per check, and the failing checks in words."""
    head = "passed" if result.passed else "failed: regression"
    if not result.passed and not result.failures:
        head = "failed: failed queries"
    pct = f"{result.confidence * 100:.4g}%"
    lines = [
        f"### assay gate {head}",
        "",
        f"Candidate **{_cell(result.candidate)}** vs baseline **{_cell(result.baseline)}** "
        f"({_cell(result.baseline_source)}) on `{_cell(result.judgments_name)}` "
        f"(`{result.judgments_version}`), {result.n_paired} paired queries.",
        "",
        f"Rule: {result.rule}; margin {result.margin:.3f}, seed {result.seed}, "
        f"{result.n_resamples} resamples.",
        "",
        *(f"- policy: {_cell(line)}" for line in policy_lines(result.policies)),
        "",
    ]
    header = ["Check", "Metric", "n", "Baseline", "Candidate", "Delta", f"{pct} CI", "Result"]
    rows = [
        [
            c.label,
            c.metric,
            c.n,
            f"{c.baseline_mean:.3f}",
            f"{c.candidate_mean:.3f}",
            f"{c.delta:+.3f}",
            f"{c.ci_low:.3f} to {c.ci_high:.3f}",
            _status(c),
        ]
        for c in result.checks
    ]
    lines += [*markdown_rows(header, rows, right=range(2, 6)), ""]
    failures = result.failures
    if failures:
        lines.append("Regressions:")
        lines.append("")
        lines.extend(f"- {_cell(c.message)}" for c in failures)
        lines.append("")
    if result.failed_check:
        lines.extend([f"Failed queries: {_cell(result.failed_check)}", ""])
    small = [c for c in result.checks if not c.gated]
    if small:
        lines.append(
            f"Slices with fewer than {result.min_n} queries are listed but not gated: "
            + ", ".join(sorted({_cell(c.label) for c in small}))
            + "."
        )
        lines.append("")
    for w in result.warnings:
        lines.append(f"> warning: {_cell(w)}")
    if result.warnings:
        lines.append("")
    return "\n".join(lines)
