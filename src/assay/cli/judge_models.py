"""``assay judge llm|claims|answers|agree|sample|calibrate``: model judges, measured against people.

Each command parses its options, calls one library procedure (of
:mod:`assay.procedures.judging` for the model graders) and renders the result.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.common import (
    data_file,
    deprecated_flag,
    emit_result,
    finish,
    resolve_format,
    say_wrote,
    validate_choice,
)
from assay.cli.flags import flags
from assay.cli.judge import judge_app
from assay.cli.model_options import (
    ModelOpt,
    calls_emitter,
    judge_call_options,
)
from assay.report.kinds import formats_of

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.model_options import ModelCallOptions


def _format(fmt: str | None, output: list[Path] | None, kind: str) -> str:
    """``-f``/``-o`` of a ``kind`` result resolved as everywhere; ``--format text`` (the old
    name of ``plain``) warns and means ``plain``."""
    if fmt == "text":
        deprecated_flag("--format text", "--format plain")
        fmt = "plain"
    return resolve_format(fmt, output, formats_of(kind))


@judge_app.command("agree")
def agree(
    reference: Annotated[Path, typer.Argument(help="Reference labels (people, usually).")],
    candidate: Annotated[Path, typer.Argument(help="Candidate labels (a model, a reviewer).")],
    threshold: Annotated[
        int, typer.Option("--threshold", help="Grade at or above which a pair is relevant.")
    ] = 1,
    max_grade: Annotated[
        int | None, typer.Option("--max-grade", help="Clip grades above this (a policy).")
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option("--by", help="Query field to break down by (default language, query_class)."),
    ] = None,
    runs: Annotated[
        list[Path] | None,
        typer.Option("--runs", help="Runs to rank with both label sets (give two or more)."),
    ] = None,
    measure: Annotated[
        str, typer.Option("--measure", help="Measure of the system ranking.")
    ] = "nDCG@10",
    disagreements: Annotated[
        Path | None,
        typer.Option("--disagreements", help="Write pairs graded differently here (JSONL)."),
    ] = None,
    prefer: Annotated[
        str | None,
        typer.Option(
            "--prefer",
            help="Which labels win where a pair has both: human or model.",
        ),
    ] = None,
    fmt: o.kind_format("agreement") = None,  # type: ignore[valid-type]
    output: o.kind_output("agreement") = None,  # type: ignore[valid-type]
) -> None:
    """Agreement of CANDIDATE with REFERENCE: accuracy, confusion, kappa, alpha."""
    from assay.procedures.agreement import agreement

    fmt = _format(fmt, output, "agreement")
    result = agreement(
        reference,
        candidate,
        threshold=threshold,
        max_grade=max_grade,
        by=by or None,
        runs=runs or (),
        measure=measure,
        prefer=prefer,
        disagreements_file=disagreements,
    )
    if disagreements is not None:
        n = len(result.disagreements)
        typer.echo(f"wrote {n} disagreements to {disagreements}", err=True)
    emit_result(result, fmt, output)


# ----------------------------------------------------------------- model graders
@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[..., None]]:
    """A rich progress bar on stderr with the running cost; yields the per-call callback."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(
        TextColumn("grading"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("${task.fields[cost]:.4f}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("grading", total=total, cost=0.0)

    def on_call(record: Any, budget: Any) -> None:
        progress.update(task, advance=1, cost=budget.spent)

    with progress:
        yield on_call


ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bar.")]


@judge_app.command("llm")
@judge_call_options
def llm(
    pairs: Annotated[
        Path, typer.Argument(help="Pool file (query_id, query, doc_id) or judgments.")
    ],
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus holding the documents.")],
    model: ModelOpt,
    output: Annotated[
        list[Path],
        typer.Option(
            "-o",
            "--output",
            help="Model labels: FILE.jsonl; repeatable: FILE.json, FILE.txt get the result.",
        ),
    ],
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="Queries file of TREC qrels (id<TAB>text).")
    ] = None,
    scale_max: Annotated[
        int | None, typer.Option("--scale-max", help="Top grade of the set's scale (default 3).")
    ] = None,
    rationale: Annotated[bool, typer.Option("--rationale", help="Keep each rationale.")] = False,
    progress: ProgressOpt = False,
    fmt: o.kind_format("model_judgments") = None,  # type: ignore[valid-type]
    *,
    calls: ModelCallOptions,
    samples: int,
) -> None:
    """Grade the relevance of every pair with a model (0-3, mapped onto the set's scale).

    Exit 1 when the budget stopped the run, more calls failed than --max-failed,
    or no pair could be graded.
    """
    from assay.procedures.judging import RelevanceOptions, judge_relevance

    labels, results = data_file(output, "model labels")
    fmt = _format(fmt, results, "model_judgments")
    options = RelevanceOptions(
        id_field=id_field,
        text_fields=text_field,
        queries=queries,
        scale_max=scale_max,
        rationale=rationale,
        samples=samples,
    )
    bar = _progress if progress else None
    job = judge_relevance(pairs, corpus, labels, calls=calls, options=options, progress=bar)
    emitter = calls_emitter(labels, "model labels")
    finish(job, fmt, results, max_failed=calls.max_failed, emitter=emitter)


# ----------------------------------------------------------------- review and calibration
@judge_app.command("sample")
def sample(
    labels: Annotated[Path, typer.Argument(help="Labels to review (model labels, any set).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Review file to write (JSONL).")],
    fmt: o.data_format_option("jsonl") = "jsonl",  # type: ignore[valid-type]
    fraction: Annotated[float, typer.Option("--fraction", help="Share to review.")] = 0.2,
    stratify: Annotated[
        str,
        typer.Option(
            "--stratify",
            help="Stratify by: grade, source, query_id, language, query_class or none.",
        ),
    ] = "grade",
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same sample).")] = 0,
    show_grades: Annotated[
        bool, typer.Option("--show-grades", help="Show the label under review.")
    ] = False,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="Corpus: put each document's text in the file.")
    ] = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    queries: o.Queries = None,
) -> None:
    """Pick a stratified, reproducible sample of labels for a person to check."""
    from assay.procedures.judging_files import ReviewOptions, review_sample_file

    validate_choice("--format", fmt, ("jsonl",))
    options = ReviewOptions(
        fraction=fraction,
        stratify=stratify,
        seed=seed,
        show_grades=show_grades,
        corpus=corpus,
        id_field=id_field,
        text_fields=text_field,
        queries=queries,
    )
    sampled = review_sample_file(labels, output, options)
    say_wrote(output, "review", "jsonl")
    if sampled.warning:
        typer.echo(f"warning: {flags(sampled.warning)}", err=True)
    typer.echo(
        f"{len(sampled.lines)} pairs to review in {output} "
        f"(fraction {fraction}, stratified by {stratify}, seed {seed}; "
        f"grades {'shown' if show_grades else 'hidden'}); fill reviewer_grade and reason, "
        f"then run: assay judge agree {output} {labels}"
    )


@judge_app.command("calibrate")
def calibrate_cmd(
    model_judgments: Annotated[Path, typer.Argument(help="Model labels covering every query.")],
    run: Annotated[Path, typer.Argument(help="Run file to score.")],
    human: Annotated[Path, typer.Option("--human", help="People's labels on a sample of queries.")],
    metric: Annotated[
        list[str] | None, typer.Option("-m", "--metric", help="Metric (repeatable).")
    ] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="1 - confidence level.")] = 0.05,
    fmt: o.kind_format("calibration") = None,  # type: ignore[valid-type]
    output: o.kind_output("calibration") = None,  # type: ignore[valid-type]
) -> None:
    """Metric intervals from people's sample alone, the model alone, and both (PPI++)."""
    from assay.procedures.calibration import calibrate

    fmt = _format(fmt, output, "calibration")
    result = calibrate(model_judgments, run, human, metrics=metric, alpha=alpha)
    emit_result(result, fmt, output)


# ----------------------------------------------------------------- answer cases
@judge_app.command("claims")
@judge_call_options
def claims(
    cases: Annotated[
        Path,
        typer.Argument(
            help="Cases file (JSONL) with claims to judge; with --extract, free-text answers "
            "(ragas, deepeval or OTLP traces)."
        ),
    ],
    model: ModelOpt,
    output: Annotated[
        list[Path],
        typer.Option(
            "-o",
            "--output",
            help="Cases file to write: FILE.jsonl; repeatable: FILE.json, FILE.txt get the result.",
        ),
    ],
    corpus: Annotated[
        Path | None,
        typer.Option(
            "--corpus",
            help="Corpus holding the cited documents (with --extract: texts of contexts "
            "known by id only).",
        ),
    ] = None,
    extract: Annotated[
        str | None,
        typer.Option(
            "--extract",
            help="Split free-text answers into claims first: sentences (no model) or model "
            "(the model also names the supporting contexts).",
        ),
    ] = None,
    people: Annotated[
        Path | None,
        typer.Option(
            "--people",
            help="People's labels of a sample of claims (JSONL: case_id, claim, supported): "
            "adds a PPI++ interval of the claim support rate.",
        ),
    ] = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    fmt: o.kind_format("model_claims") = None,  # type: ignore[valid-type]
    *,
    calls: ModelCallOptions,
    samples: int,
) -> None:
    """Fill each missing claim-citation support judgment with the model's verdict.

    With --extract, the cases are free-text answers: each is split into claims
    (by sentence, or by the model naming the supporting contexts) and written as
    structured cases whose support the model then judges.
    """
    from assay.procedures.judging import ClaimsOptions, judge_claims

    if extract is not None:
        validate_choice("--extract", extract, ("sentences", "model"))
    filled_file, results = data_file(output, "filled cases")
    fmt = _format(fmt, results, "model_claims")
    options = ClaimsOptions(
        samples=samples, id_field=id_field, text_fields=text_field, extract=extract, people=people
    )
    result = judge_claims(cases, corpus, filled_file, calls=calls, options=options)
    emitter = calls_emitter(filled_file, "cases")
    finish(result, fmt, results, max_failed=calls.max_failed, emitter=emitter)


@judge_app.command("answers")
@judge_call_options
def answers(
    cases: Annotated[Path, typer.Argument(help="Cases file (JSONL) with answers to grade.")],
    model: ModelOpt,
    rubric: Annotated[
        Path | None, typer.Option("--rubric", help="Rubric text replacing the built-in one.")
    ] = None,
    fmt: o.kind_format("model_answers") = None,  # type: ignore[valid-type]
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the result to FILE.json (the result file), FILE.txt (the table as "
            "text). Repeatable.",
        ),
    ] = None,
    *,
    calls: ModelCallOptions,
    samples: int,
) -> None:
    """Grade each answer with the seed-003 rubric; report the model-graded hallucination rate."""
    from assay.procedures.judging import AnswersOptions, judge_answers

    fmt = _format(fmt, output, "model_answers")
    options = AnswersOptions(rubric=rubric, samples=samples)
    result = judge_answers(cases, calls=calls, options=options)
    emitter = calls_emitter()
    finish(result, fmt, output, max_failed=calls.max_failed, emitter=emitter)
