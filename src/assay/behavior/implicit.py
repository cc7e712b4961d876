"""``judge_clicks``: implicit judgments from a UBI log through a click model.

One library function does the whole procedure (read, build the click table,
fit the model, map estimates to grades, keep the counts); the CLI parses its
arguments, calls it and renders the result. The result is a versioned
:class:`ImplicitJudgments` that says every bias assumption it made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from assay.behavior import clickmodels as cm
from assay.behavior.clickmodels import expected_clicks
from assay.behavior.dbn import fit_dbn
from assay.behavior.read import DEFAULT_MAX_BYTES
from assay.behavior.sharded import click_statistics
from assay.behavior.stats import StatsParams
from assay.behavior.table import checked_weights
from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.io.csvout import csv_text
from assay.judgments.models import JudgmentSet
from assay.results.models import ResultModel

#: Grades are 0-3; a grade is the number of thresholds the estimate reaches.
GRADE_SCALE = "0-3 (0 not relevant, 1 marginal, 2 relevant, 3 highly relevant)"
#: Default thresholds of each model's estimate (COEC: 1 = an average result at those ranks).
DEFAULT_THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "ctr": (0.05, 0.15, 0.30),
    "coec": (0.5, 1.0, 2.0),
    "pbm": (0.10, 0.30, 0.60),
    "dbn": (0.05, 0.15, 0.35),
}
_MODEL_NOTES = {
    "ctr": "CTR ignores position: a result shown high gets more clicks for being high",
    "coec": "COEC divides by the clicks an average result gets at the same ranks "
    "(position bias is the CTR-by-rank curve of this log); bounded at the cap",
    "pbm": "PBM: a click needs examination (depends on rank only; the top result is "
    "always examined) and attraction (depends on query and document only)",
    "dbn": "DBN: users scan top-down, stop when satisfied or with probability 1-gamma; "
    "clicks are binary; grades use relevance = attractiveness x satisfaction",
}


class PairStat(BaseModel):
    """One (query, document) pair: counts, the model's estimate, its interval and grade."""

    query_id: str
    query: str
    doc_id: str
    impressions: int
    clicks: float
    ctr: float
    expected_clicks: float
    estimate: float | None
    low: float | None
    high: float | None
    grade: int | None
    grade_low: int | None
    grade_high: int | None


class ImplicitJudgments(ResultModel):
    """Implicit judgments from behaviour logs (``kind = implicit_judgments``)."""

    schema_version: str = "1"
    kind: Literal["implicit_judgments"] = "implicit_judgments"
    model: str
    files: list[str]
    positions: int
    application: str | None = None
    weights: dict[str, float]
    min_impressions: int
    thresholds: list[float]
    grade_scale: str = GRADE_SCALE
    assumptions: list[str]
    counts: dict[str, int]
    params: dict[str, Any]
    iterations: int
    converged: bool
    pairs: list[PairStat]

    def graded(self) -> list[PairStat]:
        """Pairs with enough impressions to carry a grade."""
        return [p for p in self.pairs if p.grade is not None]

    def to_judgment_set(self) -> Any:
        """Every graded pair as an in-memory :class:`~assay.judgments.JudgmentSet`."""

        qrels: dict[str, dict[str, int]] = {}
        texts: dict[str, str] = {}
        for p in self.graded():
            qrels.setdefault(p.query_id, {})[p.doc_id] = int(p.grade or 0)
            texts[p.query_id] = p.query
        queries = [{"query_id": q, "text": t, "source": "behavior"} for q, t in texts.items()]
        return JudgmentSet.from_records(queries, qrels, name=f"implicit-{self.model}")


def judge_clicks(
    paths: str | Path | Sequence[str | Path],
    *,
    model: str = "pbm",
    positions: int,
    weights: Mapping[str, float] | None = None,
    application: str | None = None,
    min_impressions: int = 3,
    thresholds: Sequence[float] | None = None,
    cap: float = 4.0,
    gamma: float | None = None,
    layout: str | None = None,
    max_bytes: int | None = None,
) -> ImplicitJudgments:
    """Read UBI logs, fit ``model`` (ctr, coec, pbm, dbn) and grade every pair on 0-3.

    ``positions`` (0 or 1) is checked against the log. Pairs with fewer than
    ``min_impressions`` impressions get counts but no grade. ``thresholds``
    (three ascending numbers on the model's scale) default to
    :data:`DEFAULT_THRESHOLDS`; ``cap`` bounds COEC; ``gamma`` fixes the DBN
    continuation probability (default: fitted). ``max_bytes`` bounds the
    uncompressed bytes read (default :data:`assay.behavior.read.DEFAULT_MAX_BYTES`).
    """

    if model not in cm.MODELS:
        raise UsageError(f"--model must be one of {', '.join(cm.MODELS)}; got {model!r}")
    at_least("min_impressions", min_impressions)
    cuts = _numbers_in_range(model, thresholds, cap, gamma)

    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    w = checked_weights(weights, positions)
    params = StatsParams(positions, w, application)
    # on Ray: a task per file reads it, a task per shard of query ids makes its statistics
    table, files = click_statistics(paths, params, layout=layout, max_bytes=limit)
    if not table.pairs:
        raise UsageError(
            "no search instance with a result list in the log: no impression events and no "
            f"query_response_hit_ids ({table.counts['actions']} actions, "
            f"{table.counts['no_query_text']} lists without query text)"
        )
    fit = _fit(table, model, cap, gamma)
    rows = _pair_rows(table, fit, min_impressions, cuts)
    counts = {"queries": len(table.query_keys), "pairs": len(table.pairs), **table.counts}
    counts["graded_pairs"] = sum(1 for r in rows if r.grade is not None)
    return ImplicitJudgments(
        model=model,
        files=files,
        positions=positions,
        application=application,
        weights=dict(weights or {"click": 1.0}),
        min_impressions=min_impressions,
        thresholds=cuts,
        assumptions=[*table.assumptions, _MODEL_NOTES[model], *_grading_notes(min_impressions)],
        counts=counts,
        params=_small(fit.params),
        iterations=fit.iterations,
        converged=fit.converged,
        pairs=rows,
    )


def _pair_rows(table: Any, fit: Any, min_impressions: int, cuts: list[float]) -> list[PairStat]:
    """One :class:`PairStat` per pair: counts; estimate and grades if enough impressions."""
    import numpy as np

    impressions = table.pair_impressions()
    clicks = table.pair_clicks()
    expected = expected_clicks(table)
    edges = np.asarray(cuts)
    enough = impressions >= min_impressions
    grade, g_low, g_high = (
        np.searchsorted(edges, v, side="right") for v in (fit.estimate, fit.low, fit.high)
    )
    text_of = dict(zip(table.query_keys, table.query_texts, strict=True))

    def graded(values: Any, i: int, cast: Any) -> Any:
        return cast(values[i]) if enough[i] else None

    return [
        PairStat(
            query_id=q,
            query=text_of[q],
            doc_id=d,
            impressions=int(impressions[i]),
            clicks=float(clicks[i]),
            ctr=float(clicks[i] / impressions[i]) if impressions[i] else 0.0,
            expected_clicks=float(expected[i]),
            estimate=graded(fit.estimate, i, float),
            low=graded(fit.low, i, float),
            high=graded(fit.high, i, float),
            grade=graded(grade, i, int),
            grade_low=graded(g_low, i, int),
            grade_high=graded(g_high, i, int),
        )
        for i, (q, d) in enumerate(table.pairs)
    ]


def _numbers_in_range(
    model: str, thresholds: Sequence[float] | None, cap: float, gamma: float | None
) -> list[float]:
    """The thresholds to use; every number finite and in range, else a UsageError naming it."""
    cuts = list(DEFAULT_THRESHOLDS[model] if thresholds is None else thresholds)
    if (
        len(cuts) != 3
        or not all(_finite(c) for c in cuts)
        or any(b <= a for a, b in pairwise(cuts))
    ):
        raise UsageError(
            f"`thresholds` must be three finite ascending numbers, got {cuts}",
            parameter="thresholds",
        )
    if not _finite(cap) or cap <= 0:
        raise UsageError(f"`cap` must be a finite number > 0, got {cap!r}", parameter="cap")
    if gamma is not None and (not _finite(gamma) or not 0 <= gamma <= 1):
        raise UsageError(
            f"`gamma` is a probability: a number from 0 to 1, got {gamma!r}", parameter="gamma"
        )
    return [float(c) for c in cuts]


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fit(table: Any, model: str, cap: float, gamma: float | None) -> Any:

    if model == "ctr":
        return cm.fit_ctr(table)
    if model == "coec":
        return cm.fit_coec(table, cap=cap)
    if model == "pbm":
        return cm.fit_pbm(table)

    return fit_dbn(table, gamma=gamma)


def _small(params: dict[str, Any]) -> dict[str, Any]:
    """Model-wide parameters only (per-pair lists live in the pair rows)."""
    return {k: v for k, v in params.items() if k not in ("attractiveness", "satisfaction")}


def _grading_notes(min_impressions: int) -> list[str]:
    return [
        f"pairs with fewer than {min_impressions} impressions are not graded",
        "grade = how many of the three thresholds the estimate reaches; the interval is 95%",
    ]


def implicit_jsonl(result: ImplicitJudgments) -> tuple[str, int]:
    """The graded pairs as JSONL qrels (``source: behavior``) and how many queries were left out.

    A query none of whose pairs reaches grade 1 is left out: the click log gives
    no relevant document for it, which is not the same as "no answer exists".
    """
    by_query: dict[str, dict[str, int]] = {}
    texts: dict[str, str] = {}
    for p in result.graded():
        by_query.setdefault(p.query_id, {})[p.doc_id] = int(p.grade or 0)
        texts[p.query_id] = p.query
    lines = []
    dropped = 0
    for qid, rel in by_query.items():
        if max(rel.values()) < 1:
            dropped += 1
            continue
        row = {
            "query_id": qid,
            "query": texts[qid],
            "relevant": rel,
            "source": "behavior",
            "model": result.model,
        }
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines), dropped


STATS_COLUMNS = list(PairStat.model_fields)


def stats_csv(result: ImplicitJudgments) -> str:
    """Per pair: impressions, clicks, CTR, expected clicks, estimate, interval, grade (CSV)."""

    rows = []
    for p in result.pairs:
        row = p.model_dump()
        rows.append([None if row[c] is None else _cell(row[c]) for c in STATS_COLUMNS])
    return csv_text(STATS_COLUMNS, rows)


def _cell(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)
