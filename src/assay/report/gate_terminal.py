"""Terminal rendering of gate and verify-suite results (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.core.words import count
from assay.report.policies import policy_lines
from assay.report.table import Cell, Column, Styled, Table, print_line, print_table

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from assay.procedures.gate_result import GateResult
    from assay.procedures.verification import VerifyResult


def checks_table(result: GateResult) -> Table:
    """One row per check: metric, n, means, delta, CI and whether it passed."""
    pct = f"{result.confidence * 100:.4g}% CI"
    cols = [Column("check", key=True), Column("metric", key=True)]
    cols += [Column(n, "right") for n in ("n", "baseline", "candidate", "delta", pct)]
    cols.append(Column("result"))
    table = Table(cols)
    for c in result.checks:
        status: Cell = (
            "not gated" if not c.gated else ("pass" if c.passed else Styled("regression", "red"))
        )
        table.add_row(
            c.label,
            c.metric,
            str(c.n),
            f"{c.baseline_mean:.3f}",
            f"{c.candidate_mean:.3f}",
            f"{c.delta:+.3f}",
            f"{c.ci_low:.3f} to {c.ci_high:.3f}",
            status,
        )
    return table


def render_terminal(result: GateResult, console: Console) -> None:
    """Verdict line, the rule, a table of checks and every regression in words."""
    from rich.markup import escape

    verdict = "[bold green]PASS[/]" if result.passed else "[bold red]REGRESSION[/]"
    if not result.passed and not result.failures:
        verdict = "[bold red]FAIL[/] (failed queries)"
    print_line(
        console,
        f"assay gate: {verdict}  {escape(result.candidate)} vs baseline "
        f"{escape(result.baseline)} ({escape(result.baseline_source)}), "
        f"{escape(result.judgments_name)} {result.judgments_version}, "
        f"{count(result.n_paired, 'paired query')}",
        markup=True,
    )
    print_line(console, f"rule: {result.rule}")
    for line in policy_lines(result.policies):
        print_line(console, f"policy: {line}")
    print_table(checks_table(result), console)
    for c in result.failures:
        print_line(console, f"[red]regression:[/] {escape(c.message)}", markup=True)
    if result.failed_check:
        print_line(console, f"[red]failed queries:[/] {escape(result.failed_check)}", markup=True)
    if result.passed:
        for c in (c for c in result.checks if c.gated and c.slice_field is None):
            print_line(console, f"[green]pass:[/] {escape(c.message)}", markup=True)
    for w in result.warnings:
        print_line(console, f"[yellow]warning:[/] {escape(w)}", markup=True)


def render_verify_terminal(result: VerifyResult, console: Console) -> None:
    """Both scores, delta, CI, p and the verdict of ``assay verify-suite``."""
    from rich.markup import escape

    verdict = "[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"
    print_line(
        console,
        f"assay verify-suite: {verdict}  {escape(result.system)} vs degraded "
        f"{escape(result.degraded)} on {escape(result.judgments_name)} {result.judgments_version}",
        markup=True,
    )
    for line in policy_lines(result.policies):
        print_line(console, f"policy: {line}")
    for check in result.checks:
        print_line(console, f"  {check.metric} system    {check.system_mean:.4f}")
        print_line(console, f"  {check.metric} degraded  {check.degraded_mean:.4f}")
        print_line(
            console,
            f"  delta {check.delta:+.4f} ({check.confidence * 100:.4g}% CI {check.ci_low:.4f} "
            f"to {check.ci_high:.4f}), {count(check.n, 'paired query')}",
        )
        print_line(
            console,
            f"  paired {result.test} test: p = {check.p_value:.4g} ({check.p_value_method}), "
            f"alpha {result.alpha:g}",
        )
        print_line(console, check.message)
