"""Run a declared judge with one model or a jury: rubric scores per criterion, pairwise verdicts.

Every model of the judge grades every item through :func:`assay.judges.grading.grade_items`
(the same cache keys, retries, timeouts, budget and failure accounting as every
model grader); the models of a jury share one budget. :mod:`assay.judges.pairwise`
turns pairwise grades into verdicts; this module does the rubric side and the
parts both share (the runs, the jury's agreement, agreement with people).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from assay.core.failures import FAILED_CALLS
from assay.judges.grading import GradingRun, Item, grade_items
from assay.judges.spec import JudgeSpec
from assay.judges.stats import AgreementStats, krippendorff_alpha, pair_stats
from assay.providers.accounting import Budget
from assay.results.models import ResultModel

#: Krippendorff's alpha levels a jury's agreement is reported at.
JURY_LEVELS = ("nominal", "ordinal", "interval")


class JudgeRuns(ResultModel):
    """What every declared-judge result shares: the judge, one grading run per model."""

    judge: dict[str, Any] = Field(description="The judge: name, file, kind, models, aggregate.")
    runs: list[GradingRun] = Field(description="One grading run per model, in the judge's order.")

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls of every model, named for ``max_failed``."""
        out: list[tuple[str, list[str]]] = []
        for run in self.runs:
            out += run.failed_runs(f"judge {self.judge['kind']} --model {run.model.get('name')}")
        return out

    @property
    def stopped_at_budget(self) -> bool:
        """The budget stopped the calls (items, or models of a jury, left unasked)."""
        return any(r.stopped_at_budget for r in self.runs)

    @property
    def circuit_open(self) -> str | None:
        """Why a model's calls stopped after too many failed in a row (the first such model)."""
        return next(
            (f"{r.model.get('name')}: {r.circuit_open}" for r in self.runs if r.circuit_open),
            None,
        )

    @property
    def nothing_scored(self) -> bool:
        """No model scored any item."""
        return all(r.nothing_scored for r in self.runs)

    def exit_code(self) -> int:
        """1 when the budget or a circuit breaker stopped calls, or no model scored anything."""
        stopped = self.stopped_at_budget or self.circuit_open is not None
        return 1 if stopped or self.nothing_scored else 0


class CriterionReport(BaseModel):
    """One criterion over every item: scores, their distribution, agreement."""

    name: str = Field(description="The criterion.")
    scale: tuple[int, int] = Field(description="Lowest and highest score.")
    scored: int = Field(description="Items with a (jury) score.")
    mean: float | None = Field(description="Mean score over scored items.")
    distribution: dict[str, int] = Field(
        description="Items per score (a jury's mean rounded half up)."
    )
    jury_alpha: dict[str, float | None] | None = Field(
        description="Krippendorff's alpha between the jury's models (None for one model)."
    )
    human: AgreementStats | None = Field(
        description="Agreement of the (jury) score with people's labels, where items have them."
    )


class RubricJudgeResult(JudgeRuns):
    """What ``assay judge rubric`` concluded: per item and per criterion."""

    schema_version: str = "1"
    kind: Literal["rubric_judge"] = "rubric_judge"
    items: list[dict[str, Any]] = Field(
        description="Per item: id, the (jury) score per criterion, each model's scores."
    )
    criteria: list[CriterionReport] = Field(description="Per criterion, in the file's order.")
    unscored: list[dict[str, Any]] = Field(
        default_factory=list, description="Items a model could not score, with the reasons."
    )


def run_models(
    spec: JudgeSpec,
    items: Sequence[Item],
    grader: Any,
    clients: Sequence[Any],
    *,
    samples: int = 1,
    max_cost: float | None = None,
    on_call: Callable[..., None] | None = None,
) -> list[GradingRun]:
    """Every model grades every item; the models share one budget of ``max_cost``."""

    budget = Budget(max_cost)
    runs = []
    for client in clients:
        run = grade_items(
            items, grader, client, samples=samples, max_cost=max_cost, on_call=on_call,
            budget=budget,
        )  # fmt: skip
        runs.append(run)
        if budget.exhausted:
            break  # the budget is spent: the models after this one are not asked
    return runs


def jury_alpha(columns: list[list[float | None]]) -> dict[str, float | None] | None:
    """Krippendorff's alpha between models (rows) over items (columns); None for one model."""
    import numpy as np

    if len(columns) < 2:
        return None
    data = np.array([[np.nan if v is None else v for v in row] for row in columns], dtype=float)
    return {level: krippendorff_alpha(data, level) for level in JURY_LEVELS}


def human_agreement(pairs: list[tuple[int, int]]) -> AgreementStats | None:
    """Agreement of (people, judge) pairs, by :func:`assay.judges.stats.pair_stats`."""

    if not pairs:
        return None
    return pair_stats([p for p, _ in pairs], [j for _, j in pairs])


def majority(values: Sequence[Any], tie: Any = None) -> Any:
    """The most common value; among equals, ``tie`` when given, else the lowest."""
    counts = Counter(values)
    top = max(counts.values())
    best = [v for v in counts if counts[v] == top]
    if len(best) == 1:
        return best[0]
    return tie if tie is not None else min(best)


def _half_up(value: float) -> int:
    import math

    return math.floor(value + 0.5)


def rubric_result(
    spec: JudgeSpec, raw: list[dict[str, Any]], runs: list[GradingRun]
) -> RubricJudgeResult:
    """Per item the (jury) score of each criterion; per criterion the report."""
    names = [r.model.get("name", "?") for r in runs]
    verdicts = [{g.id: g.verdict for g in r.items} for r in runs]
    items: list[dict[str, Any]] = []
    for obj in raw:
        per_model = {n: v.get(obj["id"]) for n, v in zip(names, verdicts, strict=True)}
        scores: dict[str, float | int | None] = {}
        for crit in spec.criteria:
            got = [v[crit] for v in per_model.values() if v is not None]
            if not got:
                scores[crit] = None
            elif spec.table.aggregate == "mean":
                scores[crit] = sum(got) / len(got)
            else:
                scores[crit] = majority(got)
        shown = {n: None if v is None else {c: v[c] for c in spec.criteria}
                 for n, v in per_model.items()}  # fmt: skip
        items.append({"id": obj["id"], "scores": scores, "models": shown})
    reports = [_criterion(spec, crit, raw, items, verdicts) for crit in spec.criteria]
    unscored = [{**u, "model": r.model.get("name")} for r in runs for u in r.unscored_items()]
    return RubricJudgeResult(
        judge=spec.shown(), runs=runs, items=items, criteria=reports, unscored=unscored
    )


def _criterion(
    spec: JudgeSpec,
    crit: str,
    raw: list[dict[str, Any]],
    items: list[dict[str, Any]],
    verdicts: list[dict[str, Any]],
) -> CriterionReport:
    c = spec.criteria[crit]
    scores = [i["scores"][crit] for i in items]
    scored = [s for s in scores if s is not None]
    rounded = [_half_up(s) for s in scored]
    distribution = {str(v): rounded.count(v) for v in range(c.scale[0], c.scale[1] + 1)}
    columns = [
        [None if (v.get(i["id"]) is None) else v[i["id"]][crit] for i in items] for v in verdicts
    ]
    people = [
        (obj["labels"][crit], _half_up(s))
        for obj, s in zip(raw, scores, strict=True)
        if s is not None and crit in (obj.get("labels") or {})
    ]
    return CriterionReport(
        name=crit,
        scale=c.scale,
        scored=len(scored),
        mean=sum(scored) / len(scored) if scored else None,
        distribution=distribution,
        jury_alpha=jury_alpha(columns),
        human=human_agreement(people),
    )
