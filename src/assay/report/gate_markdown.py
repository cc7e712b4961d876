"""Markdown rendering of a gate result (a pull-request comment)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.escape import md_cell
from assay.report.policies import policy_lines
from assay.report.table import markdown_rows

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.gate_result import GateCheck, GateResult
    from assay.procedures.verification import VerifyResult


def _status(check: GateCheck) -> str:
    if not check.gated:
        return "not gated"
    return "pass" if check.passed else "**regression**"


def _cell(text: str) -> str:

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


def render_verify_markdown(result: VerifyResult) -> str:
    """``assay verify-suite``'s verdict and one table row per metric, in Markdown."""
    head = "passed" if result.passed else "failed: the suite cannot tell the systems apart"
    lines = [
        f"### assay verify-suite {head}",
        "",
        f"System **{_cell(result.system)}** vs degraded **{_cell(result.degraded)}** on "
        f"`{_cell(result.judgments_name)}` (`{result.judgments_version}`); paired "
        f"{_cell(result.test)} test, alpha {result.alpha:g}, seed {result.seed}.",
        "",
        *(f"- policy: {_cell(line)}" for line in policy_lines(result.policies)),
        "",
    ]
    header = ["Metric", "n", "System", "Degraded", "Delta", "CI", "p", "Result"]
    rows = [
        [
            c.metric,
            c.n,
            f"{c.system_mean:.3f}",
            f"{c.degraded_mean:.3f}",
            f"{c.delta:+.3f}",
            f"{c.ci_low:.3f} to {c.ci_high:.3f}",
            f"{c.p_value:.4g}",
            "pass" if c.passed else "**fail**",
        ]
        for c in result.checks
    ]
    lines += [*markdown_rows(header, rows, right=range(1, 7)), ""]
    lines.extend(f"- {_cell(c.message)}" for c in result.checks if not c.passed)
    return "\n".join(lines) + "\n"
