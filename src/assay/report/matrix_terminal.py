"""The terminal report of a generation matrix: the case x variant grid, summaries, comparisons."""

from __future__ import annotations

from typing import Any

from assay.matrix.result import Cell, MatrixResult


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


def fmt(value: float | None, spec: str = ".3f") -> str:
    """A number, or ``-`` when missing."""
    return "-" if value is None else format(value, spec)


def render_terminal(result: MatrixResult, console: Any) -> None:
    """Print ``result`` with rich tables to ``console``."""
    console.print(
        f"[bold]matrix {result.name}[/bold]  {len(result.case_ids)} cases x "
        f"{len(result.variants)} variants x {result.repeats} repeats  "
        f"(cases {result.cases_version})"
    )
    console.print(_grid(result))
    console.print(_summary(result))
    if result.comparisons:
        console.print(_comparisons(result))
    failing = [(c.variant, c.case_id, first_reason(c)) for c in result.cells if c.passes < c.n]
    if failing:
        console.print("[bold]failures[/bold] (first reason of each failing cell)")
        for variant, cid, reason in failing:
            console.print(f"  {variant} {cid}: {reason}", markup=False)
    for line in footer(result):
        console.print(line, markup=False, highlight=False)


def _grid(result: MatrixResult) -> Any:
    from rich.table import Table

    grid = Table(title="passing repeats per cell", title_justify="left")
    grid.add_column("case")
    grid.add_column("kind")
    names = [v.variant for v in result.variants]
    for name in names:
        grid.add_column(name, justify="right")
    for cid in result.case_ids:
        row = [cell_text(result.cell(n, cid)) for n in names]
        grid.add_row(cid, result.case_kinds.get(cid, ""), *row)
    return grid


def _summary(result: MatrixResult) -> Any:
    from rich.table import Table

    summary = Table(title="variants", title_justify="left")
    cols = (
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
    for col in cols:
        summary.add_column(col, justify="left" if col in ("variant", "provider") else "right")
    for v in result.variants:
        failures = ", ".join(f"{k} {n}" for k, n in sorted(v.failures.items())) or "-"
        summary.add_row(
            v.variant,
            v.provider_kind,
            fmt(v.pass_rate),
            fmt(v.pass_all_rate),
            str(v.flaky_cells),
            failures,
            f"{v.usage.input_tokens}/{v.usage.output_tokens}",
            f"{v.usage.cost:.6f}",
            fmt(v.latency_mean, ".3f"),
        )
    return summary


def _comparisons(result: MatrixResult) -> Any:
    from rich.table import Table

    comp = Table(title=f"against {result.baseline}", title_justify="left")
    cols = (
        "candidate",
        "cases",
        "only baseline",
        "only candidate",
        "delta pass^N",
        "p",
        "p (Holm)",
        "verdict",
    )
    for col in cols:
        comp.add_column(col, justify="left" if col in ("candidate", "verdict") else "right")
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
