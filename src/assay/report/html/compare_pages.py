"""The comparison pages: the answer first, then slices, plots and per-query deltas; a query
opens the baseline's and a candidate's ranked lists side by side."""

from __future__ import annotations

from typing import Any

from assay.report.compare_common import (
    CSS_CLASS,
    correction_label,
    interval,
    power_cells,
    pval,
    settings_line,
    signed,
)
from assay.report.html import charts
from assay.report.html.pages import MAX_ROWS, Links, Page, number, sort_key
from assay.report.plotly_page import chart_spec
from assay.report.policies import policy_lines
from assay.stats.verdict import Verdict

#: At most this many sorted-delta charts (candidate x measure).
MAX_DELTA_CHARTS = 8


def _line(s: Any) -> dict[str, Any]:

    return {
        "candidate": s.candidate,
        "metric": s.metric,
        "verdict": s.verdict,
        "cls": CSS_CLASS.get(s.verdict, "nodiff"),
        "delta": signed(s.delta, metric=s.metric),
        "ci": interval(s),
        "p": pval(s.p_adjusted),
        "wlt": f"{s.wins}/{s.losses}/{s.ties}",
        "n": s.n,
        "base": number(s.baseline_mean, s.metric),
        "cand": number(s.candidate_mean, s.metric),
    }


def comparison_page(result: Any, links: Links) -> Page:
    """Verdict lines, slices, forest and sorted-delta plots, the per-query delta table."""

    systems = [s.name for s in result.systems]
    cols = [(m, c) for m in result.metrics for c in result.candidates]
    rows = []
    for q in result.per_query[:MAX_ROWS]:
        deltas = [q.deltas.get(c, {}).get(m) for m, c in cols]
        rows.append(
            {
                "query_id": q.query_id,
                "href": links.query(q.query_id),
                "text": q.text,
                "slices": [q.slices.get(f) or "" for f in result.settings.by],
                "deltas": [(f"{d:+.4f}" if d is not None else "–", sort_key(d)) for d in deltas],
                "ranks": [q.first_rel_rank.get(s) for s in systems],
            }
        )
    charts_out = {
        f"forest-{i}": chart_spec(charts.forest(result, m)) for i, m in enumerate(result.metrics)
    }
    pairs = [(c, m) for c in result.candidates for m in result.metrics][:MAX_DELTA_CHARTS]
    for i, (c, m) in enumerate(pairs):
        fig = charts.sorted_deltas(result, c, m, lambda qid: links.query(qid))
        charts_out[f"deltas-{i}"] = chart_spec(fig)
    return Page(
        template="comparison.html",
        title=f"Comparison: {', '.join(result.candidates)} vs {result.baseline}",
        values={
            "r": result,
            "answer": [_line(c) for c in result.comparisons],
            "slices": [_line(s) | {"slice": f"{s.field}={s.value}"} for s in result.slices],
            "cols": cols,
            "systems": systems,
            "rows": rows,
            "total": len(result.per_query),
            "settings": settings_line(result),
            "adjusted": correction_label(result),
            "power": [(p.candidate, p.metric, p.n, *power_cells(p)) for p in result.power],
            "changes": _changes(result, links),
            "policies": _policies(result),
        },
        charts=charts_out,
    )


def _changes(result: Any, links: Links) -> list[dict[str, Any]]:
    """Per candidate and measure: the queries that lost and gained most."""
    out = []
    for c in result.comparisons:
        items = [("loss", "worse", q) for q in c.top_losses]
        items += [("gain", "better", q) for q in c.top_gains]
        if not items:
            continue
        rows = [
            {
                "label": label,
                "cls": cls,
                "query_id": q.query_id,
                "href": links.query(q.query_id),
                "text": q.text,
                "base": number(q.baseline, c.metric),
                "cand": number(q.candidate, c.metric),
                "delta": f"{q.delta:+.4f}",
                "ranks": (q.baseline_rank, q.candidate_rank),
            }
            for label, cls, q in items
        ]
        out.append(
            {
                "candidate": c.candidate,
                "metric": c.metric,
                "rows": rows,
                "open": c.verdict is not Verdict.NO_DIFFERENCE or len(result.comparisons) <= 6,
                "losses": len(c.top_losses),
                "gains": len(c.top_gains),
            }
        )
    return out


def _policies(result: Any) -> list[str]:

    return list(policy_lines(result.policies))


def _moves(base: Any, cand: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Rank movement of each document: in the candidate vs the baseline, and what left."""
    base_rank = {d.doc_id: d.rank for d in base.docs}
    cand_rank = {d.doc_id: d.rank for d in cand.docs}
    into = {}
    for doc, rank in cand_rank.items():
        before = base_rank.get(doc)
        if before is None:
            into[doc] = "new"
        elif before == rank:
            into[doc] = "="
        else:
            into[doc] = f"{'▲' if before > rank else '▼'}{abs(before - rank)} (was {before})"
    out = {doc: "dropped" for doc in base_rank if doc not in cand_rank}
    return out, into


def comparison_query_page(
    result: Any, qid: str, candidate: str, links: Links, lists: tuple[Any, Any]
) -> Page:
    """One query of a comparison: its values and both ranked lists with rank movements."""
    q = next((p for p in result.per_query if p.query_id == qid), None)
    scores = []
    if q is not None:
        for m in result.metrics:
            scores.append(
                (
                    m,
                    number(q.values.get(result.baseline, {}).get(m), m),
                    number(q.values.get(candidate, {}).get(m), m),
                    f"{q.deltas.get(candidate, {}).get(m, float('nan')):+.4f}",
                )
            )
    base_moves, cand_moves = _moves(*lists)
    return Page(
        template="query.html",
        title=f"Query {qid}: {candidate} vs {result.baseline}",
        values={
            "r": result,
            "qid": qid,
            "text": q.text if q is not None else "",
            "known": q is not None,
            "compare": {"baseline": result.baseline, "candidate": candidate},
            "candidates": result.candidates,
            "cmp_scores": scores,
            "scores": [],
            "lists": list(lists),
            "moves": [base_moves, cand_moves],
            "unjudged": sum(1 for lst in lists for d in lst.docs if d.grade is None),
            "pool_href": None,
            "back": links.result(),
        },
    )
