"""What each page shows, as template values: read from result models, never computed anew.

A page is a :class:`Page`: its template, title, values and charts. The same
page is served by :func:`assay.view.app.make_app` and written to one file by
:func:`assay.report.html.export.render_html`; ``served`` says which, so links to other
pages (queries, cells, results) exist only where there is a server to answer.

Per-query values are read through public accessors only: an evaluation's
:meth:`per_query_frame`, a comparison's ``per_query`` rows (``values``,
``deltas``, ``slices``, ``first_rel_rank``), a matrix's ``cells``.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from assay.report.digits import fmt
from assay.report.policies import policy_lines

#: Per-query rows a page lists at most (the JSON API and the result file hold every row).
MAX_ROWS = 5000


class Page(BaseModel):
    """A page to render: template, title, values and Plotly charts (id -> JSON spec)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    template: str
    title: str
    values: dict[str, Any] = Field(default_factory=dict)
    charts: dict[str, str] = Field(default_factory=dict)


class Links:
    """Addresses of the other pages, or ``None`` in a file written on its own."""

    def __init__(self, rid: str | None, served: bool) -> None:
        self.rid, self.served = rid, served

    def result(self, rid: str | None = None) -> str | None:
        """The page of result ``rid`` (this one by default)."""
        return f"/r/{quote(rid or self.rid or '')}" if self.served else None

    def query(self, qid: str) -> str | None:
        """The query page of ``qid`` in this result."""
        return f"/r/{quote(self.rid or '')}/q/{quote(qid, safe='')}" if self.served else None

    def cell(self, vi: int, ci: int) -> str:
        """A matrix cell: its page when served, its section of the file otherwise."""
        return f"/r/{quote(self.rid or '')}/cell/{vi}/{ci}" if self.served else f"#cell-{vi}-{ci}"


def number(value: Any, metric: str | None = None, digits: int = 4) -> str:
    """A score as the reports print it (``-`` for none)."""

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return fmt(float(value), digits, metric)
    return str(value)


def sort_key(value: Any) -> str:
    """The ``data-sort`` value of a cell: numbers sort as numbers, text as text."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | float):
        return "" if math.isnan(float(value)) else repr(float(value))
    return "" if value is None else str(value)


def _query_rows(result: Any, only: str | None = None) -> list[dict[str, Any]]:
    """An evaluation's per-query rows as dicts (through ``per_query_frame``); ``only``: the
    row of that query alone (the others are never turned into dicts)."""
    frame = result.per_query_frame()
    if only is not None:
        frame = frame[frame.index.astype(str) == only]
    rows = frame.reset_index().to_dict(orient="records")
    for row in rows:
        for key, value in list(row.items()):
            if value is not None and isinstance(value, float) and math.isnan(value):
                row[key] = None
    return rows


def evaluation_page(result: Any, links: Links) -> Page:
    """Aggregate, groups and the per-query table of an evaluation."""
    metrics = list(result.metrics)
    rows = _query_rows(result)
    total = len(rows)
    rows = rows[:MAX_ROWS]
    meta = [
        k
        for k in (rows[0].keys() if rows else [])
        if k not in ("query_id", "text", "first_rel_rank", "in_run", *metrics)
    ]
    table = [
        {
            "query_id": r["query_id"],
            "href": links.query(str(r["query_id"])),
            "text": r.get("text") or "",
            "meta": [r.get(k) or "" for k in meta],
            "rank": r.get("first_rel_rank"),
            "values": [(number(r.get(m), m), sort_key(r.get(m))) for m in metrics],
        }
        for r in rows
    ]
    groups = [
        (
            field,
            [
                (value, row.get("n"), [number(row.get(m), m) for m in metrics])
                for value, row in by_value.items()
            ],
        )
        for field, by_value in result.groups.items()
    ]
    title = f"Evaluation: {result.run.name} on {result.judgments.name}"
    return Page(
        template="evaluation.html",
        title=title,
        values={
            "r": result,
            "metrics": metrics,
            "aggregate": [(m, number(result.aggregate.get(m), m)) for m in metrics],
            "groups": groups,
            "meta": meta,
            "rows": table,
            "total": total,
            "policies": _policy_lines(result),
        },
    )


def _policy_lines(result: Any) -> list[str]:

    return list(policy_lines(getattr(result, "policies", []) or []))


def query_row(result: Any, qid: str) -> dict[str, Any] | None:
    """The per-query row of ``qid`` in an evaluation (None: not one of its queries)."""
    return next(iter(_query_rows(result, qid)), None)


def evaluation_query_page(
    result: Any, qid: str, links: Links, ranked: Any, pool_href: str | None
) -> Page:
    """One query of an evaluation: its values and the ranked list with grades."""
    row = query_row(result, qid)
    values = [(m, number(row.get(m), m)) for m in result.metrics] if row else []
    unjudged = sum(1 for d in ranked.docs if d.grade is None)
    return Page(
        template="query.html",
        title=f"Query {qid}: {result.run.name}",
        values={
            "r": result,
            "qid": qid,
            "text": (row or {}).get("text") or "",
            "known": row is not None,
            "scores": values,
            "compare": None,
            "candidates": [],
            "cmp_scores": [],
            "lists": [ranked],
            "moves": [{}],
            "unjudged": unjudged,
            "pool_href": pool_href if unjudged else None,
            "back": links.result(),
        },
    )


def gate_page(result: Any, links: Links) -> Page:
    """A gate's checks: measure, slice, Δ, interval, passed and the evidence in words."""
    checks = [
        {
            "metric": c.metric,
            "slice": f"{c.slice_field}={c.slice_value}" if c.slice_field else "all",
            "n": c.n,
            "delta": number(c.delta, c.metric),
            "ci": f"[{number(c.ci_low, c.metric)}, {number(c.ci_high, c.metric)}]",
            "passed": c.passed,
            "gated": c.gated,
            "message": c.message,
        }
        for c in result.checks
    ]
    verdict = "passed" if result.passed else "failed"
    return Page(
        template="gate.html",
        title=f"Gate {verdict}: {result.candidate} vs {result.baseline}",
        values={
            "r": result,
            "checks": checks,
            "verdict": verdict,
            "policies": _policy_lines(result),
        },
    )


def generic_page(result: Any, links: Links) -> Page:
    """Any other result kind: its JSON, as written."""
    return Page(
        template="generic.html",
        title=f"{getattr(result, 'kind', 'result')} result",
        values={"r": result, "json": result.model_dump_json(indent=2)},
    )
