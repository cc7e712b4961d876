"""``assay answers``: score grounded answers, or collect them from a live system."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import (
    emit_result,
    options_from,
    record_result,
    resolve_format,
    say_wrote,
    validate_choice,
)
from assay.report.kinds import formats_of

CasesArg = Annotated[
    Path | None,
    typer.Argument(
        help="Cases to score (omit with --collect): assay's cases JSONL, a ragas dataset "
        "(JSONL, CSV, Parquet or a save_to_disk folder), deepeval test cases (JSON/JSONL) "
        "or OTLP JSON traces."
    ),
]
InputFormatArg = Annotated[
    str | None,
    typer.Option(
        "--input-format",
        help="Format of the cases: cases, ragas, deepeval or otlp (default: told from the "
        "first row).",
    ),
]
SimilarityArg = Annotated[
    str | None,
    typer.Option(
        "--similarity",
        help="Free-text cases: add answer_similarity with this embedding model ('default': "
        "multilingual-e5-small when installed, else wordllama).",
    ),
]
CorpusArg = Annotated[
    Path | None,
    typer.Option(help="Corpus (or file of ids): citations must resolve to a record."),
]
CollectArg = Annotated[
    bool, typer.Option("--collect", help="Call a live system and write cases to review.")
]
SystemArg = Annotated[
    str | None,
    typer.Option("--system", "-s", help="With --collect: the RAG function, module:function."),
]
JudgmentsArg = Annotated[
    Path | None,
    typer.Option(
        help="With --collect: the questions (any judgment format). Scoring free-text "
        "cases: the judgments their contexts are scored against."
    ),
]
SystemNameArg = Annotated[
    str | None,
    typer.Option(
        "--system-name",
        help="Name of the system that answered, recorded in the result (default: the "
        "'system' all cases share).",
    ),
]


@app.command()
def answers(
    cases: CasesArg = None,
    input_format: InputFormatArg = None,
    similarity: SimilarityArg = None,
    corpus: CorpusArg = None,
    by: o.By = None,
    format: o.kind_format("answers") = None,  # type: ignore[valid-type]
    output: o.kind_output("answers", extra=" With --collect, the cases.") = None,  # type: ignore[valid-type]
    collect: CollectArg = False,
    system: SystemArg = None,
    judgments: JudgmentsArg = None,
    system_name: SystemNameArg = None,
    store: o.Store = None,
    record: o.Record = True,
) -> None:
    """Score grounded answers: status, provenance, claim support, citations, refusals, numbers.

    With --collect, run --system on every question of --judgments and write
    cases (support left for reviewers) to -o; questions the system fails on are
    reported and make the exit code 1.
    """
    from assay.procedures.answers import AnswersOptions, check_answers

    if input_format is not None:
        validate_choice("--input-format", input_format, ("cases", "ragas", "deepeval", "otlp"))
    options = options_from(AnswersOptions, locals())
    if not collect:  # an -o suffix answers cannot write is refused before scoring
        format = resolve_format(format, options.output, formats_of("answers"))
    outcome = check_answers(options)
    if collect:
        if _say_collected(outcome):
            raise typer.Exit(1)
        return
    emit_result(outcome, str(format), list(options.output))
    if record:
        record_result(outcome, store)


def _say_collected(collected: Any) -> int:
    """Say on stderr what a collection wrote and which questions failed; their number."""
    from rich.console import Console
    from rich.markup import escape

    from assay.core.words import count

    stderr = Console(stderr=True, highlight=False, soft_wrap=True)
    for failure in collected.failures:
        stderr.print(f"[bold red]failed:[/bold red] {escape(str(failure))}")
    if collected.cases:
        say_wrote(collected.path, "cases", "jsonl")
        stderr.print(
            f"wrote {collected.cases} cases to {escape(str(collected.path))}; "
            f"{count(collected.pending, 'claim citation')} await a support judgment"
        )
    if collected.failures:
        kept = "; no case written" if not collected.cases else ""
        stderr.print(
            f"{len(collected.failures)} of {count(collected.questions, 'question')} failed{kept}"
        )
    return len(collected.failures)
