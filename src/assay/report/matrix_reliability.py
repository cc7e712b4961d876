"""The reliability tables of a matrix report: pass@k and pass^k per variant, then per case.

Both the terminal and the Markdown report print these rows; they only read
:attr:`assay.matrix.result.MatrixResult.reliability` (flaky cases come first there).
"""

from __future__ import annotations

from typing import Any

from assay.report.digits import or_dash
from assay.report.table import Column, Table, markdown_rows, print_line, print_table


def _ci(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None or ci is None:
        return "-"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def variant_rows(result: Any) -> tuple[list[str], list[list[str]]]:
    """Headers and rows: variant, k, cases, pass@k [interval], pass^k [interval], flaky."""
    rel = result.reliability
    headers = ["variant", "k", "cases", "pass@k [CI]", "pass^k [CI]", "flaky cases"]
    rows = [
        [
            v.variant,
            str(v.k),
            str(v.cases),
            _ci(v.pass_at_k, v.pass_at_k_ci),
            _ci(v.pass_hat_k, v.pass_hat_k_ci),
            str(v.flaky_cases),
        ]
        for v in rel.variants
    ]
    return headers, rows


def case_rows(result: Any) -> tuple[list[str], list[list[str]]]:
    """Headers and rows per variant and case, flaky cases first."""
    rel = result.reliability
    ks = [str(k) for k in rel.ks]
    headers = [
        "case",
        "variant",
        "passes",
        "flip rate",
        *(f"pass@{k}" for k in ks),
        *(f"pass^{k}" for k in ks),
    ]
    rows = [
        [
            c.case_id + (" (flaky)" if c.flaky else ""),
            c.variant,
            f"{c.passes}/{c.n}",
            or_dash(c.flip_rate),
            *(or_dash(c.pass_at[k]) for k in ks),
            *(or_dash(c.pass_hat[k]) for k in ks),
        ]
        for c in rel.cases
    ]
    return headers, rows


def method_line(result: Any) -> str:
    """How pass@k, pass^k, the flip rate and the intervals are computed."""
    rel = result.reliability
    return (
        "pass@k = 1 - C(n-c,k)/C(n,k) (Chen et al. 2021), pass^k = C(c,k)/C(n,k) (tau-bench), "
        "flip rate = share of pairs of repeats that differ; "
        f"{rel.confidence:.0%} intervals: {rel.method}"
    )


def print_reliability(result: Any, console: Any) -> None:
    """The two reliability tables and the method line, through the one table renderer."""

    if result.reliability is None:
        return
    for title, (headers, rows) in (
        ("reliability over repeats", variant_rows(result)),
        ("cases (flaky first)", case_rows(result)),
    ):
        table = Table(
            columns=[
                Column(h, align="left" if i < 2 else "right", key=i < 1)
                for i, h in enumerate(headers)
            ],
            title=title,
        )
        for row in rows:
            table.add_row(*row)
        print_table(table, console)
    print_line(console, method_line(result))


def markdown_reliability(result: Any) -> list[str]:
    """The Markdown lines of the reliability section (none for a schema-1 result)."""

    if result.reliability is None:
        return []
    out = ["", "Reliability over repeats:", ""]
    out += markdown_rows(*variant_rows(result))
    out += ["", "Cases, flaky first:", ""]
    out += markdown_rows(*case_rows(result))
    return [*out, "", f"_{method_line(result)}_"]
