"""Terminal rendering of implicit judgments from behaviour logs (rich): reads the result only."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from assay.behavior.implicit import ImplicitJudgments, implicit_jsonl, stats_csv

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console


def render_jsonl(result: ImplicitJudgments) -> str:
    """The graded pairs as JSONL qrels (the ``jsonl`` format; see ``implicit_jsonl``)."""
    return implicit_jsonl(result)[0]


def render_stats_csv(result: ImplicitJudgments) -> str:
    """Per pair: impressions, clicks, CTR, estimate, interval, grade (the ``csv`` format)."""
    return stats_csv(result)


def render_implicit(result: ImplicitJudgments, console: Console) -> None:
    """Counts, the model's parameters, the grade mapping and every bias assumption."""
    from rich.markup import escape

    c = result.counts
    app = f", application {escape(result.application)}" if result.application else ""
    console.print(
        f"assay judge clicks: model {result.model}{app}, {c['instances']} search instances "
        f"({c['from_impressions']} from impression events, {c['from_hit_ids']} from "
        f"query_response_hit_ids), {c['queries']} queries, {c['pairs']} pairs, "
        f"{c['graded_pairs']} graded (>= {result.min_impressions} impressions)"
    )
    console.print(
        f"actions counted {c['actions']}, on documents not shown {c['actions_on_unshown']}, "
        f"position differs from the impression {c['actions_position_mismatch']}; instances "
        f"without query text {c['no_query_text']}, actions without a result list "
        f"{c['no_result_list']}"
    )
    if result.model in ("pbm", "dbn"):
        state = "converged" if result.converged else "did NOT converge"
        console.print(f"EM: {result.iterations} iterations, {state}")
    for key, value in result.params.items():
        if isinstance(value, list):
            value = " ".join(f"{v:.3g}" for v in value)
        elif isinstance(value, float):
            value = f"{value:.4g}"
        console.print(f"{key.replace('_', ' ')}: {escape(str(value))}")
    cuts = ", ".join(f"{t:g}" for t in result.thresholds)
    console.print(f"grade scale {escape(result.grade_scale)}; thresholds on the estimate: {cuts}")
    grades = Counter(p.grade for p in result.pairs if p.grade is not None)
    console.print(
        "graded pairs per grade: "
        + (", ".join(f"{g}: {grades[g]}" for g in sorted(grades)) or "none")
    )
    console.print("bias assumptions:")
    for line in result.assumptions:
        console.print(f"  - {escape(line)}")


def render_sample(rows: list[tuple[str, str, int]], strategy: str, console: Console) -> None:
    """The sampled queries with their number of searches."""
    from rich.markup import escape

    total = sum(n for _, _, n in rows)
    console.print(f"assay judge sample-queries: {len(rows)} queries ({strategy}), {total} searches")
    for _, text, n in rows:
        console.print(f"  {n:>6}  {escape(text)}")
