"""Declared judges as procedures: ``judge rubric`` and ``judge pairwise``.

Each takes the items file, the judge file (TOML, :mod:`assay.judges.spec`) and a
:class:`~assay.procedures.model_options.ModelCallOptions` (cache, budget,
failures allowed; its ``model``, when given, replaces the judge's models), and
returns a registered result whose :meth:`failed_runs` and :meth:`exit_code`
say whether it failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import UsageError
from assay.judges.grading import Item, check_samples
from assay.judges.pairwise import pair_items, pairwise_result
from assay.judges.panel import rubric_result, run_models
from assay.judges.spec import load_judge, pairwise_grader, read_items, rubric_grader
from assay.procedures.model_options import ModelCallOptions

if TYPE_CHECKING:
    from assay.judges.pairwise import PairwiseJudgeResult
    from assay.judges.panel import RubricJudgeResult


class DeclaredJudgeOptions(BaseModel):
    """How often each item (each order of a pair) is asked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(
        1, description="ask each item N times (1 to 100); each model's verdict is the majority"
    )


def _graded(
    items_file: str | Path,
    judge_file: str | Path,
    kind: str,
    calls: ModelCallOptions,
    options: DeclaredJudgeOptions | None,
    on_call: Callable[..., None] | None,
) -> tuple[Any, list[dict[str, Any]], list[Any]]:
    """The checked judge, its items and one grading run per model."""

    options = options or DeclaredJudgeOptions()
    check_samples(options.samples)
    spec = load_judge(judge_file)
    if spec.kind != kind:
        raise UsageError(
            f"{spec.path} [judge] kind: {spec.kind!r}; use `assay judge {spec.kind}`", "judge"
        )
    raw = read_items(items_file, spec)
    if kind == "pairwise":
        grader, items = pairwise_grader(spec), pair_items(raw)
    else:
        grader = rubric_grader(spec)
        items = [Item(o["id"], {f: o[f] for f in spec.fields}) for o in raw]
    names = [calls.model] if calls.model is not None else list(spec.table.models)
    with calls.executor_in_force(), contextlib.ExitStack() as stack:
        clients = [
            stack.enter_context(calls.model_copy(update={"model": n}).open_client()) for n in names
        ]
        runs = run_models(
            spec, items, grader, clients, samples=options.samples, max_cost=calls.max_cost,
            on_call=on_call,
        )  # fmt: skip
    return spec, raw, runs


def judge_rubric(
    items: str | Path,
    judge: str | Path,
    *,
    calls: ModelCallOptions,
    options: DeclaredJudgeOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> RubricJudgeResult:
    """Grade every item on every criterion of a rubric judge (one model or a jury)."""

    spec, raw, runs = _graded(items, judge, "rubric", calls, options, on_call)
    return rubric_result(spec, raw, runs)


def judge_pairwise(
    pairs: str | Path,
    judge: str | Path,
    *,
    calls: ModelCallOptions,
    options: DeclaredJudgeOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> PairwiseJudgeResult:
    """Ask every pair in both orders (one model or a jury); verdicts and position bias."""

    spec, raw, runs = _graded(pairs, judge, "pairwise", calls, options, on_call)
    return pairwise_result(spec, raw, runs)
