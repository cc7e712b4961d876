"""The tuning page: the objective over the grid (a heat map for two tuned keys, a curve for
one), each fold's choice, the recommended set with its honest score and the held-out
comparison. Read from the result only."""

from __future__ import annotations

from typing import Any

from assay.report.html import charts
from assay.report.html.charts import layout
from assay.report.html.pages import Links, Page, number
from assay.report.plotly_page import chart_spec
from assay.report.tune_text import signed
from assay.tuning.space import label


def _values(result: Any, key: str) -> list[Any]:
    return list(result.parameters[key])


def _shown(value: Any) -> str:

    return label({"v": value}).split("=", 1)[1]


def objective_chart(result: Any) -> Any:
    """A curve (one tuned key), a heat map (two), else the sets in grid order."""
    import plotly.graph_objects as go

    obj = result.objective
    keys = list(result.parameters)
    if len(keys) == 2:
        xs, ys = _values(result, keys[1]), _values(result, keys[0])
        z: list[list[float | None]] = [[None] * len(xs) for _ in ys]
        text = [[""] * len(xs) for _ in ys]
        for i, p in enumerate(result.grid):
            row, col = ys.index(p.params[keys[0]]), xs.index(p.params[keys[1]])
            z[row][col] = p.means.get(obj)
            chosen = sum(f.chosen_index == i for f in result.folds)
            marks = (["★"] if i == result.recommended.index else []) + (
                [f"{chosen}/{len(result.folds)} folds"] if chosen else []
            )
            text[row][col] = " ".join(marks)
        fig = go.Figure(
            go.Heatmap(
                x=[_shown(v) for v in xs],
                y=[_shown(v) for v in ys],
                z=z,
                text=text,
                texttemplate="%{text}",
                textfont={"size": 12},
                colorscale="Viridis",
                colorbar={"title": obj},
                hovertemplate=f"{keys[1]} %{{x}}<br>{keys[0]} %{{y}}<br>{obj} %{{z:.4f}}"
                "<extra></extra>",
            )
        )
        fig.update_xaxes(title=keys[1], type="category")
        fig.update_yaxes(title=keys[0], type="category")
        return layout(fig, title=f"{obj}, in sample (★ recommended)", height=400)
    if len(keys) == 1:
        x = [_shown(p.params[keys[0]]) for p in result.grid]
        title_x = keys[0]
    else:
        x = [label(p.params) for p in result.grid]
        title_x = "parameter set"
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=[p.means.get(obj) for p in result.grid],
            mode="lines+markers",
            line={"color": "#1a56b8"},
            hovertemplate=f"%{{x}}<br>{obj} %{{y:.4f}}<extra></extra>",
        )
    )
    fig.update_xaxes(title=title_x, type="category")
    return layout(fig, title=f"{obj} over the grid (in sample)", height=340, yaxis_title=obj)


def tuning_page(result: Any, links: Links) -> Page:
    """The grid chart, the recommended set, the folds, the held-out comparison, the grid."""

    keys = list(result.parameters)
    rec = result.recommended
    held = [
        {
            "metric": c.metric,
            "base": number(c.baseline_mean, c.metric),
            "cand": number(c.candidate_mean, c.metric),
            "delta": number(c.delta, c.metric),
            "ci": f"[{number(c.ci_low, c.metric)}, {number(c.ci_high, c.metric)}]",
            "p": number(c.p_adjusted),
            "verdict": str(c.verdict),
            "cls": {"better": "better", "worse": "worse"}.get(c.verdict.name.lower(), "nodiff"),
        }
        for c in result.held_out.comparisons
    ]
    chart_ids = {"objective": chart_spec(objective_chart(result))}
    for m in result.metrics:
        chart_ids[f"held-out-{m}"] = chart_spec(charts.forest(result.held_out, m))
    return Page(
        template="tuning.html",
        title=f"Tuning: {result.system} on {result.judgments_name}",
        values={
            "r": result,
            "keys": keys,
            "recommended": label(rec.params),
            "scores": [
                (
                    m,
                    number(rec.honest_score.get(m), m),
                    number(rec.in_sample_score.get(m), m),
                    signed(result.optimism.get(m, 0.0)),
                )
                for m in result.metrics
            ],
            "folds": [
                (
                    f.fold,
                    len(f.queries),
                    label(f.chosen),
                    number(f.train_score),
                    number(f.held_out_score),
                )
                for f in result.folds
            ],
            "held": held,
            "grid": [
                (
                    [_shown(p.params[k]) for k in keys],
                    [number(p.means.get(m), m) for m in result.metrics],
                    i == rec.index,
                )
                for i, p in enumerate(result.grid)
            ],
            "metric_charts": [f"held-out-{m}" for m in result.metrics],
        },
        charts=chart_ids,
    )
