"""The terminal report of a generation matrix: the case x variant grid, summaries, comparisons."""

from __future__ import annotations

from typing import Any

from assay.matrix.result import Cell, MatrixResult
from assay.report.digits import or_dash
from assay.report.matrix_reliability import print_reliability
from assay.report.table import Column, Table, print_line, print_table
from assay.stats.corrections import LABELS


def cell_text(cell: Cell | None) -> str:
    """``3/3``, ``1/3 flaky`` or ``0/3`` (passing repeats / repeats)."""
    if cell is None or cell.n == 0:
        return "-"
    text = f"{cell.passes}/{cell.n}"
    return text + " flaky" if cell.flaky else text


def first_reason(cell: Cell | None) -> str:
    """The first failure reason of a cell (for the failures list)."""
    if cell is None:
        return ""
    for attempt in cell.attempts:
        if not attempt.passed and attempt.reasons:
            return attempt.reasons[0]
    return ""


def render_terminal(result: MatrixResult, console: Any) -> None:
    """Print ``result`` to ``console`` through the one table renderer of the reports."""

    print_line(
        console,
        f"matrix {result.name}  {len(result.case_ids)} cases x {len(result.variants)} variants"
        f" x {result.repeats} repeats  (cases {result.cases_version})",
    )
    print_table(_grid(result), console)
    print_table(_summary(result), console)
    if result.comparisons:
        print_table(_comparisons(result), console)
    failing = [(c.variant, c.case_id, first_reason(c)) for c in result.cells if c.passes < c.n]
    if failing:
        print_line(console, "failures (first reason of each failing cell)")
        for variant, cid, reason in failing:
            print_line(console, f"  {variant} {cid}: {reason}")

    print_reliability(result, console)
    for line in footer(result):
        print_line(console, line)


def _table(
    title: str, headers: tuple[str, ...], left: int, key: int = 1, last_left: bool = False
) -> Any:

    columns = [
        Column(
            h,
            align="left" if i < left or (last_left and i == len(headers) - 1) else "right",
            key=i < key,
        )
        for i, h in enumerate(headers)
    ]
    return Table(columns=columns, title=title)


def _grid(result: MatrixResult) -> Any:
    names = [v.variant for v in result.variants]
    grid = _table("passing repeats per cell", ("case", "kind", *names), left=2)
    for cid in result.case_ids:
        row = [cell_text(result.cell(n, cid)) for n in names]
        grid.add_row(cid, result.case_kinds.get(cid, ""), *row)
    return grid


def _summary(result: MatrixResult) -> Any:
    headers = (
        "variant",
        "provider",
        "pass rate",
        "pass^N",
        "flaky",
        "failed assertions",
        "tokens in/out",
        "cost USD",
        "mean latency s",
    )
    summary = _table("variants", headers, left=2)
    for v in result.variants:
        failures = ", ".join(f"{k} {n}" for k, n in sorted(v.failures.items())) or "-"
        summary.add_row(
            v.variant,
            v.provider_kind,
            or_dash(v.pass_rate),
            or_dash(v.pass_all_rate),
            str(v.flaky_cells),
            failures,
            f"{v.usage.input_tokens}/{v.usage.output_tokens}",
            f"{v.usage.cost:.6f}",
            or_dash(v.latency_mean, ".3f"),
        )
    return summary


def _comparisons(result: MatrixResult) -> Any:

    headers = (
        "candidate",
        "cases",
        "only baseline",
        "only candidate",
        "delta pass^N",
        "p",
        f"p ({LABELS[result.correction]})",
        "verdict",
    )
    comp = _table(f"against {result.baseline}", headers, left=1, last_left=True)
    for c in result.comparisons:
        comp.add_row(
            c.candidate,
            str(c.n),
            str(c.baseline_only),
            str(c.candidate_only),
            f"{c.delta:+.3f}",
            f"{c.p_value:.4f}",
            f"{c.p_adjusted:.4f}",
            c.verdict,
        )
    return comp


def footer(result: MatrixResult) -> list[str]:
    """Policy, usage and budget lines every matrix report prints."""
    u = result.usage
    lines = [
        f"policy: {result.policy}; alpha {result.alpha}",
        f"assertions: {', '.join(result.assertions)}",
        f"calls {u.calls} (cached {u.cached}, errors {u.errors}); tokens {u.input_tokens} in, "
        f"{u.output_tokens} out; cost ${u.cost:.6f}, spent now ${u.spent:.6f}",
    ]
    if result.judge_usage is not None:
        j = result.judge_usage
        lines.append(f"judge calls {j.calls} (cached {j.cached}); cost ${j.cost:.6f}")
    if any(p.get("kind") == "baseline" for p in result.providers):
        lines.append("baselines are Python functions, not models: they cost nothing")
    if result.stopped_at_budget:
        lines.append(f"stopped at the budget of ${result.max_cost}: some repeats were not asked")
    return lines
