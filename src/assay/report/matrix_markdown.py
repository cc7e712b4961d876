"""The Markdown report of a generation matrix (a PR comment, a release note)."""

from __future__ import annotations

from assay.matrix.result import MatrixResult
from assay.report.matrix_terminal import cell_text, first_reason, fmt, footer


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def render_markdown(result: MatrixResult) -> str:
    """The grid, the variant summaries, the comparisons, the failures and the policy."""
    names = [v.variant for v in result.variants]
    out = [
        f"## Generation matrix: {result.name}",
        "",
        f"{len(result.case_ids)} cases x {len(names)} variants x {result.repeats} repeats "
        f"(cases `{result.cases_version}`); a cell shows passing repeats / repeats.",
        "",
        _row(["case", "kind", *names]),
        _row(["---"] * (len(names) + 2)),
    ]
    for cid in result.case_ids:
        cells = [cell_text(result.cell(n, cid)) for n in names]
        out.append(_row([cid, result.case_kinds.get(cid, ""), *cells]))
    out += [
        "",
        _row(["variant", "provider", "pass rate", "pass^N", "flaky", "tokens in/out", "cost USD"]),
        _row(["---"] * 7),
    ]
    for v in result.variants:
        out.append(
            _row(
                [
                    v.variant,
                    v.provider_kind,
                    fmt(v.pass_rate),
                    fmt(v.pass_all_rate),
                    str(v.flaky_cells),
                    f"{v.usage.input_tokens}/{v.usage.output_tokens}",
                    f"{v.usage.cost:.6f}",
                ]
            )
        )
    if result.comparisons:
        out += [
            "",
            f"Against `{result.baseline}`:",
            "",
            _row(["candidate", "only baseline", "only candidate", "delta", "p (Holm)", "verdict"]),
            _row(["---"] * 6),
        ]
        for c in result.comparisons:
            out.append(
                _row(
                    [
                        c.candidate,
                        str(c.baseline_only),
                        str(c.candidate_only),
                        f"{c.delta:+.3f}",
                        f"{c.p_adjusted:.4f}",
                        c.verdict,
                    ]
                )
            )
    failing = [c for c in result.cells if c.passes < c.n]
    if failing:
        out += ["", "Failures (first reason of each failing cell):", ""]
        out += [f"- `{c.variant}` {c.case_id}: {first_reason(c)}" for c in failing]
    out += ["", *[f"_{line}_  " for line in footer(result)]]
    return "\n".join(out) + "\n"
