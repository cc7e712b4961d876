"""What model labels buy: metric intervals from people's sample, model labels, and both (PPI++).

:func:`calibrate` scores a run per query twice: with the model's labels on
every query, and with people's labels on the queries of the human sample
(each such query scored with its human labels only, so the sample should
judge whole queries: a random subset of queries, fully judged). For each
metric it reports the model-only mean, the human-sample-only interval and
the prediction-powered interval (:func:`assay.judges.ppi.ppi_mean_interval`) that combines the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from assay.core.bounds import level
from assay.core.errors import UsageError
from assay.core.policies import ScoringPolicy
from assay.judges.labels import LabelTable, from_judgments, read_labels, to_judgments
from assay.judges.ppi import classical_mean_interval, ppi_mean_interval
from assay.judgments.models import JudgmentSet
from assay.metrics.measures import parse_measures
from assay.procedures.scoring import score_run
from assay.results.models import ResultModel
from assay.runs.io import load_run


class MetricCalibration(BaseModel):
    """One metric: model-only estimate, people-only interval, PPI++ interval."""

    metric: str
    model_only: float
    human_only: dict[str, float | int]
    ppi: dict[str, float | int | None]
    width_ratio: float | None = Field(
        None, description="PPI interval width / people-only width (below 1: the model helps)"
    )


class CalibrationResult(ResultModel):
    """Prediction-powered estimates of a run's metrics."""

    schema_version: str = "1"
    kind: Literal["calibration"] = "calibration"
    run: str
    model_labels: dict[str, Any]
    human_labels: dict[str, Any]
    alpha: float
    queries: dict[str, int]
    metrics: list[MetricCalibration]
    policy: dict[str, str] = Field(default_factory=dict)


def calibrate(
    model_labels: Any,
    run: Any,
    human: Any,
    *,
    metrics: Sequence[str] | None = None,
    alpha: float = 0.05,
) -> CalibrationResult:
    """PPI++ intervals of ``run``'s metrics from model labels and a human sample.

    Label arguments are :class:`LabelTable` objects, judgment sets or paths.
    """
    import numpy as np

    level("alpha", alpha)
    model = _table(model_labels)
    people = _table(human)
    the_run = run if not isinstance(run, str | Path) else load_run(run)
    measures = parse_measures(list(metrics) if metrics else None)
    by_model = score_run(the_run, to_judgments(model), measures).per_query_frame()
    by_people = score_run(the_run, to_judgments(people), measures).per_query_frame()
    labelled = [q for q in by_people.index if q in by_model.index]
    unlabelled = [q for q in by_model.index if q not in set(labelled)]
    if len(labelled) < 2:
        raise UsageError(
            f"the human sample shares {len(labelled)} scored queries with the model labels; "
            "calibration needs at least 2"
        )
    if not unlabelled:
        raise UsageError("every query is in the human sample: nothing is left for the model to add")
    out = []
    for m in measures:
        y = by_people.loc[labelled, m.name].to_numpy(np.float64)
        yhat = by_model.loc[labelled, m.name].to_numpy(np.float64)
        yu = by_model.loc[unlabelled, m.name].to_numpy(np.float64)
        people_only = classical_mean_interval(y, alpha=alpha)
        both = ppi_mean_interval(y, yhat, yu, alpha=alpha)
        out.append(
            MetricCalibration(
                metric=m.name,
                model_only=float(by_model[m.name].mean()),
                human_only=_interval(people_only),
                ppi={**_interval(both), "lambda": both.lam, "unlabelled": len(yu)},
                width_ratio=both.width / people_only.width if people_only.width else None,
            )
        )
    return CalibrationResult(
        run=the_run.name,
        model_labels={"name": model.name, "path": model.path, "sources": model.sources()},
        human_labels={"name": people.name, "path": people.path, "sources": people.sources()},
        alpha=alpha,
        queries={"model": len(by_model), "human": len(labelled), "model_only": len(unlabelled)},
        metrics=out,
        policy={
            "human_queries": "scored with human labels only",
            "interval": "normal; PPI++ with lambda tuned and clipped to [0, 1]",
        },
    )


def _table(labels: Any) -> LabelTable:

    if isinstance(labels, LabelTable):
        return labels
    if isinstance(labels, JudgmentSet):
        return from_judgments(labels)
    return read_labels(labels)


def _interval(iv: Any) -> dict[str, float | int]:
    return {"estimate": iv.estimate, "low": iv.low, "high": iv.high, "n": iv.n}


def attach_calibration(result: Any, calibration: CalibrationResult) -> Any:
    """``result`` (an evaluation) with ``calibration`` attached and named among its policies.

    The scores stay those of the judgments given; the calibration adds PPI++
    intervals from people's labels on a sample. Returns a copy.
    """

    q = calibration.queries
    rule = ScoringPolicy(
        name="calibration",
        text=f"--calibrate: PPI++ intervals (alpha {calibration.alpha:g}) from people's labels "
        f"on {q.get('human', 0)} of {q.get('model', 0)} queries; the scores are those of the "
        "judgments given",
    )
    return result.model_copy(
        update={
            "calibration": calibration.model_dump(mode="json"),
            "policies": [*result.policies, rule],
        }
    )
