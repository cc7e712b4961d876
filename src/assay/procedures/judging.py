"""Model judges as procedures: ``judge llm``, ``judge claims`` and ``judge answers``.

Each takes the files to grade, a :class:`~assay.procedures.model_options.ModelCallOptions`
(which model, cache, budget, failures allowed) and its own grading options, writes
the data file it makes (model labels, filled cases) and returns the result, whose
:meth:`failed_runs` and :meth:`exit_code` say whether it failed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from assay.procedures.model_options import ModelCallOptions, ProgressFactory

if TYPE_CHECKING:
    from assay.judges.cases import AnswersGradeResult, ClaimsResult
    from assay.judges.relevance import JudgeJob


class GradingOptions(BaseModel):
    """How often each item is asked, and which corpus fields a document's text is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(
        1, description="ask each item N times (1 to 100); report the majority and flip rate"
    )
    id_field: str | None = Field(None, description="the corpus field holding document ids")
    text_fields: list[str] | None = Field(
        None, description="the corpus fields making a document's text (None: detected)"
    )


class RelevanceOptions(GradingOptions):
    """``judge llm``: the scale, the queries file and whether rationales are kept."""

    queries: Path | None = Field(None, description="queries file of TREC qrels (id<TAB>text)")
    scale_max: int | None = Field(
        None, description="top grade of the set's scale (None: the set's own, else 3)"
    )
    rationale: bool = Field(False, description="keep each grade's rationale in the labels")


class AnswersOptions(GradingOptions):
    """``judge answers``: the rubric replacing the built-in one."""

    rubric: Path | None = Field(None, description="rubric text file replacing the built-in one")


def _calls(total: int, progress: ProgressFactory | None) -> AbstractContextManager[Any]:
    return contextlib.nullcontext() if progress is None else progress(total)


def judge_relevance(
    pairs: str | Path,
    corpus: str | Path,
    output: str | Path | None,
    *,
    calls: ModelCallOptions,
    options: RelevanceOptions | None = None,
    progress: ProgressFactory | None = None,
) -> JudgeJob:
    """Grade every pair of a pool file or judgment set with ``calls.model``; write the labels.

    The labels (pair-label JSONL, ``source = model``) go to ``output``; see
    :func:`assay.judges.relevance.run_relevance_job`.
    """
    from assay.corpora.load import load_corpus
    from assay.judges.relevance import read_pairs, run_relevance_job

    options = options or RelevanceOptions()
    with calls.executor_in_force():
        client = calls.open_client()
        docs = load_corpus(corpus, id_field=options.id_field, text_fields=options.text_fields)
        todo, top = read_pairs(pairs, queries=options.queries)
        total = len(todo) * max(options.samples, 1)
        with client, _calls(total, progress) as on_call:
            return run_relevance_job(
                todo,
                docs,
                client,
                output,
                set_top=top,
                scale_max=options.scale_max,
                samples=options.samples,
                max_cost=calls.max_cost,
                rationale=options.rationale,
                on_call=on_call,
            )


def judge_claims(
    cases: str | Path,
    corpus: str | Path,
    output: str | Path | None,
    *,
    calls: ModelCallOptions,
    options: GradingOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> ClaimsResult:
    """Fill each missing claim-citation support judgment of ``cases`` with the model's verdict;
    write the filled cases (JSONL) to ``output``."""
    from assay.corpora.load import load_corpus
    from assay.fileio import write_text_atomic
    from assay.judges.cases import grade_claims, read_case_lines

    options = options or GradingOptions()
    raw = read_case_lines(cases)
    docs = load_corpus(corpus, id_field=options.id_field, text_fields=options.text_fields)
    with calls.executor_in_force(), calls.open_client() as client:
        filled, result = grade_claims(
            raw, docs, client, samples=options.samples, max_cost=calls.max_cost, on_call=on_call
        )
    if output is not None:
        text = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in filled)
        write_text_atomic(output, text)
        result.output = str(output)
    return result


def judge_answers(
    cases: str | Path,
    *,
    calls: ModelCallOptions,
    options: AnswersOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> AnswersGradeResult:
    """Grade each answered case with the answer rubric; the model-graded hallucination rate."""
    from assay.judges.cases import grade_answers, read_case_lines, rubric_grader

    options = options or AnswersOptions()
    raw = read_case_lines(cases)
    grader = rubric_grader(options.rubric)
    with calls.executor_in_force(), calls.open_client() as client:
        return grade_answers(
            raw,
            client,
            grader=grader,
            samples=options.samples,
            max_cost=calls.max_cost,
            on_call=on_call,
        )
