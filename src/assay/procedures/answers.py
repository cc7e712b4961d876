"""``assay answers`` as a library procedure: score grounded answers, or collect them.

:func:`check_answers` takes one :class:`AnswersOptions`. Scoring a cases file
returns an :class:`~assay.answers.result.AnswersResult`; with ``collect``, the
RAG function ``system`` answers every question of ``judgments`` and the cases
built (support left for reviewers) are written to the one ``output`` file: the
:class:`CollectedAnswers` returned says what was written and which questions
failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.answers import score_answers
from assay.answers.collect import collect_cases, load_function, write_cases
from assay.answers.contexts import score_contexts
from assay.answers.rows import detect_format, read_text_cases
from assay.answers.text_score import score_text_cases
from assay.core.errors import UsageError
from assay.core.progress import progress
from assay.corpora.load import load_corpus
from assay.judgments.load import load_judgments

if TYPE_CHECKING:  # pragma: no cover
    from assay.answers.result import AnswersResult


class AnswersOptions(BaseModel):
    """What ``assay answers`` scores (a cases file) or collects (``collect``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cases: Path | None = Field(
        None,
        description="cases to score (None with collect): assay's cases JSONL, a ragas dataset "
        "(JSONL, CSV, Parquet, save_to_disk folder), deepeval test cases or OTLP JSON traces",
    )
    input_format: Literal["cases", "ragas", "deepeval", "otlp"] | None = Field(
        None, description="format of the cases file (None: told from its first row)"
    )
    similarity: str | None = Field(
        None,
        description="free-text cases: embedding model for answer_similarity ('default': "
        "multilingual-e5-small when installed, else wordllama; None: not computed)",
    )
    corpus: Path | None = Field(
        None, description="corpus (or file of ids): citations must resolve to a record"
    )
    by: tuple[str, ...] = Field((), description="case metadata fields to group the scores by")
    system_name: str | None = Field(
        None, description="name of the system that answered (None: the one the cases share)"
    )
    collect: bool = Field(False, description="call a live system and write cases to review")
    system: str | None = Field(None, description="with collect: the RAG function, module:function")
    judgments: Path | None = Field(
        None,
        description="with collect: the questions (any judgment format); scoring free-text "
        "cases: the judgments their contexts are scored against",
    )
    output: tuple[Path, ...] = Field(
        (), description="with collect: the one cases file written (JSONL)"
    )

    def model_post_init(self, context: Any, /) -> None:
        """Refuse options that do not go together (a UsageError naming them)."""
        if self.collect:
            self._check_collect()
            return
        if self.cases is None:
            raise UsageError("name a cases file to score (or use `collect`)", "cases")
        if self.system is not None:
            raise UsageError("`system` is only used with `collect`", "system")
        if self.similarity is not None and not self.similarity.strip():
            raise UsageError("`similarity` must not be empty", "similarity")
        if self.system_name is not None and not self.system_name.strip():
            raise UsageError("`system_name` must not be empty", "system_name")

    def _check_collect(self) -> None:
        if self.cases is not None:
            raise UsageError("`collect` writes cases; do not also name a cases file", "cases")
        if self.system is None or self.judgments is None or not self.output:
            raise UsageError("`collect` needs `system` module:function, --judgments and -o")
        if self.system_name is not None:
            raise UsageError(
                "`system_name` names the system when scoring; `collect` records `system` "
                "in each case",
                "system_name",
            )
        if len(self.output) != 1:
            raise UsageError("`collect` writes one cases file: give a single -o", "output")


@dataclass(frozen=True)
class CollectedAnswers:
    """Cases collected from a live system: where they were written and what failed."""

    path: Path
    cases: int
    pending: int
    failures: list[Any]

    @property
    def questions(self) -> int:
        """Questions asked (cases written and questions failed)."""
        return self.cases + len(self.failures)


def check_answers(options: AnswersOptions) -> AnswersResult | CollectedAnswers:
    """Score ``options.cases`` (an :class:`AnswersResult`), or collect cases (``collect``).

    Collecting writes the successful cases atomically (nothing when every
    question failed) and goes on past a failing question: each is in
    :attr:`CollectedAnswers.failures`.
    """
    if options.collect:
        return _collect(options.system or "", options.judgments, options.output[0])  # type: ignore[arg-type]

    fmt = options.input_format or detect_format(options.cases)  # type: ignore[arg-type]
    if fmt != "cases":
        return _score_text(options, fmt)
    if options.similarity is not None:
        raise UsageError(
            "`similarity` compares free-text answers with references; structured cases have none",
            "similarity",
        )
    if options.judgments is not None:
        raise UsageError(
            "a judgment set scores the contexts of free-text cases; structured cases name "
            "expected_ids instead",
            "judgments",
        )

    return score_answers(
        options.cases,  # type: ignore[arg-type]
        options.corpus,
        by=list(options.by),
        system_name=options.system_name,
    )


def _score_text(options: AnswersOptions, fmt: str) -> AnswersResult:

    cases = read_text_cases(options.cases, fmt)  # type: ignore[arg-type]
    result = score_text_cases(
        cases,
        by=options.by,
        system_name=options.system_name,
        similarity_model=options.similarity,
        context_scores=_context_scores(cases, options),
    )
    if options.corpus is not None:
        result.cases.corpus = str(options.corpus)
    return result


def _context_scores(cases: Any, options: AnswersOptions) -> Any:
    """The contexts' retrieval measures, when anything says what is relevant (else ``None``)."""
    has_refs = any(case.reference_contexts for case in cases.cases)
    if options.judgments is None and not has_refs:
        return None

    corpus = judgments = None
    if options.corpus is not None:
        corpus = load_corpus(options.corpus)
    if options.judgments is not None:
        judgments = load_judgments(options.judgments)
    return score_contexts(cases.cases, corpus, judgments)


def _collect(system: str, judgments: Path, output: Path) -> CollectedAnswers:

    function = load_function(system)
    questions = load_judgments(judgments)
    with progress("collecting answers", total=len(questions), unit="questions") as tick:
        collected = collect_cases(function, questions, system=system, on_case=lambda qid: tick())
    cases = collected.cases
    if cases:
        write_cases(cases, output)
    pending = sum(len(s["judgments"]) for c in cases for s in c["support"].values())
    return CollectedAnswers(output, len(cases), pending, list(collected.failures))
