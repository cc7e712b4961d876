"""Terminal rendering of gate and verify-suite results (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from assay.procedures.gate_result import GateResult
    from assay.procedures.verification import VerifyResult


def render_terminal(result: GateResult, console: Console) -> None:
    """Verdict line, the rule, a table of checks and every regression in words."""
    from rich.markup import escape
    from rich.table import Table

    verdict = "[bold green]PASS[/]" if result.passed else "[bold red]REGRESSION[/]"
    if not result.passed and not result.failures:
        verdict = "[bold red]FAIL[/] (failed queries)"
    console.print(
        f"assay gate: {verdict}  {escape(result.candidate)} vs baseline "
        f"{escape(result.baseline)} ({escape(result.baseline_source)}), "
        f"{escape(result.judgments_name)} {result.judgments_version}, "
        f"{result.n_paired} paired queries"
    )
    console.print(f"rule: {escape(result.rule)}")
    pct = f"{result.confidence * 100:.4g}% CI"
    table = Table(show_edge=False)
    for name, justify in (
        ("check", "left"),
        ("metric", "left"),
        ("n", "right"),
        ("baseline", "right"),
        ("candidate", "right"),
        ("delta", "right"),
        (pct, "right"),
        ("result", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for c in result.checks:
        status = "not gated" if not c.gated else ("pass" if c.passed else "[red]regression[/]")
        table.add_row(
            escape(c.label),
            escape(c.metric),
            str(c.n),
            f"{c.baseline_mean:.3f}",
            f"{c.candidate_mean:.3f}",
            f"{c.delta:+.3f}",
            f"{c.ci_low:.3f} to {c.ci_high:.3f}",
            status,
        )
    console.print(table)
    for c in result.failures:
        console.print(f"[red]regression:[/] {escape(c.message)}")
    if result.failed_check:
        console.print(f"[red]failed queries:[/] {escape(result.failed_check)}")
    if result.passed:
        for c in (c for c in result.checks if c.gated and c.slice_field is None):
            console.print(f"[green]pass:[/] {escape(c.message)}")
    for w in result.warnings:
        console.print(f"[yellow]warning:[/] {escape(w)}")


def render_verify_terminal(result: VerifyResult, console: Console) -> None:
    """Both scores, delta, CI, p and the verdict of ``assay verify-suite``."""
    from rich.markup import escape

    verdict = "[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"
    console.print(
        f"assay verify-suite: {verdict}  {escape(result.system)} vs degraded "
        f"{escape(result.degraded)} on {escape(result.judgments_name)} {result.judgments_version}"
    )
    for check in result.checks:
        console.print(f"  {check.metric} system    {check.system_mean:.4f}")
        console.print(f"  {check.metric} degraded  {check.degraded_mean:.4f}")
        console.print(
            f"  delta {check.delta:+.4f} ({check.confidence * 100:.4g}% CI {check.ci_low:.4f} "
            f"to {check.ci_high:.4f}), {check.n} paired queries"
        )
        console.print(
            f"  paired {result.test} test: p = {check.p_value:.4g} "
            f"({escape(check.p_value_method)}), alpha {result.alpha:g}"
        )
        console.print(escape(check.message))
