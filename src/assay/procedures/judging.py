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
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.answers.claims import context_records
from assay.answers.extract import extract_cases, faithfulness_interval, read_people
from assay.answers.rows import detect_format, read_text_cases
from assay.core.errors import UsageError
from assay.corpora.load import load_corpus
from assay.corpora.models import Corpus
from assay.io.fileio import write_text_atomic
from assay.judges.cases import grade_answers, grade_claims, read_case_lines, rubric_grader
from assay.judges.relevance import read_pairs, run_relevance_job
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


class ClaimsOptions(GradingOptions):
    """``judge claims``: claims extracted from free-text answers, and people's sample."""

    extract: Literal["sentences", "model"] | None = Field(
        None,
        description="the cases are free-text answers (ragas, deepeval, OTLP): split each "
        "into claims by sentence or by the model, then judge their support",
    )
    input_format: Literal["ragas", "deepeval", "otlp"] | None = Field(
        None, description="with extract: the format of the cases (None: told from the file)"
    )
    people: Path | None = Field(
        None,
        description="people's labels of a sample of claims (JSONL: case_id, claim, supported) "
        "for a PPI++ interval of the claim support rate",
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
    corpus: str | Path | None,
    output: str | Path | None,
    *,
    calls: ModelCallOptions,
    options: GradingOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> ClaimsResult:
    """Fill each missing claim-citation support judgment of ``cases`` with the model's verdict;
    write the filled cases (JSONL) to ``output``.

    With ``options.extract`` (a :class:`ClaimsOptions`) the cases are free-text answers:
    each is split into claims first (see :mod:`assay.answers.extract`), the contexts are
    the documents (``corpus`` adds texts for contexts known by id only).
    """

    options = options or GradingOptions()
    extract = getattr(options, "extract", None)
    if extract is None and corpus is None:
        raise UsageError("name the `corpus` holding the cited documents", "corpus")
    with calls.executor_in_force(), calls.open_client() as client:
        if extract is None:
            raw, account, texts = read_case_lines(cases), None, None
        else:
            raw, account, texts = _extracted(cases, options, client, calls, on_call)  # type: ignore[arg-type]
        docs = _claim_corpus(corpus, options, texts)
        filled, result = grade_claims(
            raw, docs, client, samples=options.samples, max_cost=calls.max_cost, on_call=on_call
        )
    result.extraction = None if account is None else account.model_dump(mode="json")
    people = getattr(options, "people", None)
    if people is not None:
        result.faithfulness = faithfulness_interval(filled, read_people(people))
    if output is not None:
        text = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in filled)
        write_text_atomic(output, text)
        result.output = str(output)
    return result


def _extracted(
    cases: str | Path,
    options: ClaimsOptions,
    client: Any,
    calls: ModelCallOptions,
    on_call: Callable[..., None] | None,
) -> tuple[list[dict[str, Any]], Any, Any]:

    fmt = options.input_format or detect_format(cases)
    if fmt == "cases":
        raise UsageError("`extract` splits free-text answers; these cases already have claims")
    text_cases = read_text_cases(cases, fmt)
    raw, account = extract_cases(
        text_cases.cases,
        options.extract or "sentences",
        client,
        samples=options.samples,
        max_cost=calls.max_cost,
        on_call=on_call,
    )
    return raw, account, list(text_cases.cases)


def _claim_corpus(corpus: str | Path | None, options: GradingOptions, texts: Any) -> Any:
    """The documents claims cite: the corpus, plus (extracting) the contexts' own texts."""

    records: list[dict[str, Any]] = []
    if corpus is not None:
        docs = load_corpus(corpus, id_field=options.id_field, text_fields=options.text_fields)
        if texts is None:
            return docs
        records = [{"_id": i, "text": t} for i, t in zip(docs.ids, docs.texts(), strict=True)]
    if texts is not None:
        known = {r["_id"] for r in records}
        records += [r for r in context_records(texts) if r["_id"] not in known]
    return Corpus.from_records(records, id_field="_id", text_fields=["text"], name="contexts")


def judge_answers(
    cases: str | Path,
    *,
    calls: ModelCallOptions,
    options: AnswersOptions | None = None,
    on_call: Callable[..., None] | None = None,
) -> AnswersGradeResult:
    """Grade each answered case with the answer rubric; the model-graded hallucination rate."""

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
