"""The Markdown report of a generation matrix (a PR comment, a release note)."""

from __future__ import annotations

from assay.matrix.result import MatrixResult
from assay.report.digits import or_dash
from assay.report.matrix_reliability import markdown_reliability
from assay.report.matrix_terminal import cell_text, first_reason, footer
from assay.report.table import markdown_rows
from assay.stats.corrections import LABELS


def render_markdown(result: MatrixResult) -> str:
    """The grid, the variant summaries, the comparisons, the failures and the policy."""
    names = [v.variant for v in result.variants]
    out = [
        f"## Generation matrix: {result.name}",
        "",
        f"{len(result.case_ids)} cases x {len(names)} variants x {result.repeats} repeats "
        f"(cases `{result.cases_version}`); a cell shows passing repeats / repeats.",
        "",
    ]
    grid = [
        [cid, result.case_kinds.get(cid, ""), *(cell_text(result.cell(n, cid)) for n in names)]
        for cid in result.case_ids
    ]
    out += markdown_rows(["case", "kind", *names], grid)
    variants = [
        [
            v.variant,
            v.provider_kind,
            or_dash(v.pass_rate),
            or_dash(v.pass_all_rate),
            v.flaky_cells,
            f"{v.usage.input_tokens}/{v.usage.output_tokens}",
            f"{v.usage.cost:.6f}",
        ]
        for v in result.variants
    ]
    header = ["variant", "provider", "pass rate", "pass^N", "flaky", "tokens in/out", "cost USD"]
    out += ["", *markdown_rows(header, variants)]
    if result.comparisons:
        out += ["", f"Against `{result.baseline}`:", ""]

        adjusted = f"p ({LABELS[result.correction]})"
        header = ["candidate", "only baseline", "only candidate", "delta", adjusted, "verdict"]
        rows = [
            [
                c.candidate,
                c.baseline_only,
                c.candidate_only,
                f"{c.delta:+.3f}",
                f"{c.p_adjusted:.4f}",
                c.verdict,
            ]
            for c in result.comparisons
        ]
        out += markdown_rows(header, rows)
    failing = [c for c in result.cells if c.passes < c.n]
    if failing:
        out += ["", "Failures (first reason of each failing cell):", ""]
        out += [f"- `{c.variant}` {c.case_id}: {first_reason(c)}" for c in failing]

    out += markdown_reliability(result)
    out += ["", *[f"_{line}_  " for line in footer(result)]]
    return "\n".join(out) + "\n"


def render_gate_markdown(result: MatrixResult) -> str:
    """The gate on a baseline (``matrix --gate-against``): one row per variant, in Markdown."""
    gate = result.gate
    if gate is None:
        return ""
    verdict = "passed" if gate.passed else "failed"
    out = [f"### Gate against the baseline: {verdict}", "", f"Rule: {gate.rule}.", ""]
    header = ["variant", "cases", "baseline", "candidate", "delta", "CI", "result"]
    rows = [
        [
            c.variant,
            c.cases,
            or_dash(c.baseline_pass_rate),
            or_dash(c.candidate_pass_rate),
            f"{c.delta:+.3f}",
            f"{c.ci_low:+.3f} to {c.ci_high:+.3f}",
            "pass" if c.passed else "**regression**",
        ]
        for c in gate.checks
    ]
    return "\n".join([*out, *markdown_rows(header, rows, right=range(1, 5))]) + "\n"
