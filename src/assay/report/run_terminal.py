"""The summary ``assay run`` prints after writing a run: renderers only read the outcome."""

from __future__ import annotations

from typing import Any


def run_summary_lines(outcome: Any, abstention: Any) -> list[str]:
    """What a run did, as Rich-markup lines: queries, latency, versions, failures
    (the first ten), answers cut at k, abstention."""
    from rich.markup import escape

    lines: list[str] = []
    lat = outcome.latency_ms
    ok = outcome.queries - len(outcome.failures)
    cached = " (from cache)" if outcome.cached else ""
    lines.append(
        f"{escape(outcome.system_name)}: {ok}/{outcome.queries} queries, k={outcome.k}, "
        f"config {outcome.config_hash}{cached}"
    )
    if lat.get("p50") is not None:
        lines.append(f"latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms")
    if outcome.corpus_version:
        lines.append(f"corpus {outcome.corpus_version}, judgments {outcome.judgments_version}")
    for f in outcome.failures[:10]:
        lines.append(
            f"[red]failed[/red] {escape(f.query_id)} after {f.attempts} attempts: {escape(f.error)}"
        )
    over = outcome.extra.get("over_depth_queries")
    if over:
        lines.append(
            f"[yellow]warning[/yellow] {over} queries returned more than k={outcome.k} "
            "results; the first k were kept (over_depth_queries in the sidecar)"
        )
    if len(outcome.failures) > 10:
        lines.append(f"... and {len(outcome.failures) - 10} more failures (see the sidecar)")
    if abstention is not None:
        acc, far = abstention.abstention_accuracy, abstention.false_abstention_rate
        lines.append(
            f"abstention below {abstention.threshold:g}: "
            f"{abstention.no_answer_abstained}/{abstention.no_answer_queries} no-answer queries"
            f"{'' if acc is None else f' ({acc:.2f})'}, false abstention "
            f"{abstention.answerable_abstained}/{abstention.answerable_queries}"
            f"{'' if far is None else f' ({far:.2f})'}"
        )
    return lines
