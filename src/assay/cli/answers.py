"""``assay answers``: score grounded answers, or collect them from a live system."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "markdown", "csv")


@app.command()
def answers(
    cases: Annotated[
        Path | None, typer.Argument(help="Cases JSONL to score (omit with --collect).")
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus (or file of ids): citations must resolve to a record."),
    ] = None,
    by: o.By = None,
    format: o.format_option(*FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*FORMATS, extra=" With --collect, the cases.") = None,  # type: ignore[valid-type]
    collect: Annotated[
        bool, typer.Option("--collect", help="Call a live system and write cases to review.")
    ] = False,
    system: Annotated[
        str | None,
        typer.Option("--system", "-s", help="With --collect: the RAG function, module:function."),
    ] = None,
    judgments: Annotated[
        Path | None, typer.Option(help="With --collect: the questions (any judgment format).")
    ] = None,
    system_name: Annotated[
        str | None,
        typer.Option(
            "--system-name",
            help="Name of the system that answered, recorded in the result (default: the "
            "'system' all cases share).",
        ),
    ] = None,
    store: o.Store = None,
    record: o.Record = True,
) -> None:
    """Score grounded answers: status, provenance, claim support, citations, refusals, numbers.

    With --collect, run --system on every question of --judgments and write
    cases (support left for reviewers) to -o; questions the system fails on are
    reported and make the exit code 1.
    """
    from assay.cli.common import resolve_format, validate_choice
    from assay.errors import UsageError

    if format is not None:
        validate_choice("--format", format, FORMATS)
    if collect:
        if cases is not None:
            raise UsageError("--collect writes cases; do not also name a cases file")
        if system is None or judgments is None or output is None:
            raise UsageError("--collect needs --system module:function, --judgments and -o")
        if system_name is not None:
            raise UsageError(
                "--system-name names the system when scoring; --collect records --system "
                "in each case"
            )
        if len(output) != 1:
            raise UsageError("--collect writes one cases file: give a single -o")
        failed = _collect(system, judgments, output[0])
        if failed:
            raise typer.Exit(1)
        return
    if cases is None:
        raise UsageError("name a cases file to score (or use --collect)")
    if system is not None or judgments is not None:
        raise UsageError("--system and --judgments are only used with --collect")
    if system_name is not None and not system_name.strip():
        raise UsageError("--system-name must not be empty")
    outputs = list(output or [])
    for path in outputs:  # refuse a suffix answers cannot write before scoring
        resolve_format(None if len(outputs) > 1 else format, path, FORMATS)
    result = _score(cases, corpus, by or [], format or "table", outputs, system_name)
    if record:
        from assay.cli.common import record_result

        record_result(result, store)


def _score(
    cases: Path,
    corpus: Path | None,
    by: list[str],
    fmt: str,
    outputs: list[Path],
    system_name: str | None = None,
) -> Any:
    """Load, score and render a cases file; return the :class:`AnswersResult`."""
    from assay.answers import score_answers
    from assay.cli.common import emit, suffix_format
    from assay.report.answers_terminal import print_answers

    result = score_answers(cases, corpus, by=by, system_name=system_name)

    def table(console: Any) -> None:
        print_answers(result, console)

    if fmt in ("table", "plain") or not outputs:  # the report on stdout as well
        emit(fmt, None, text=lambda f: _render(result, f), table=table, choices=FORMATS)
    for path in outputs:
        keep = fmt not in ("table", "plain") and len(outputs) == 1
        file_fmt = fmt if keep else suffix_format(path, FORMATS)
        emit(
            file_fmt,
            path,
            text=lambda f: _render(result, f),
            table=table,
            choices=FORMATS,
            kind=result.kind,
        )
    return result


def _render(result: Any, fmt: str) -> str:
    """The result as text in ``fmt`` (markdown, csv or json)."""
    if fmt == "markdown":
        from assay.report.answers_markdown import answers_markdown

        return answers_markdown(result)
    if fmt == "csv":
        from assay.report.answers_csv import answers_csv

        return answers_csv(result)
    return result.to_json() + "\n"


def _collect(system: str, judgments: Path, output: Path) -> int:
    """Collect cases from ``system``; write the successful ones to ``output``.

    Returns the number of questions that failed (each reported on stderr).
    """
    from rich.console import Console
    from rich.markup import escape

    from assay.answers.collect import collect_cases, load_function, write_cases
    from assay.cli.common import say_wrote
    from assay.judgments.load import load_judgments
    from assay.progress import progress
    from assay.words import count

    function = load_function(system)
    questions = load_judgments(judgments)
    stderr = Console(stderr=True, highlight=False, soft_wrap=True)
    with progress("collecting answers", total=len(questions), unit="questions") as tick:
        collected = collect_cases(function, questions, system=system, on_case=lambda qid: tick())
    cases, failures = collected.cases, collected.failures
    for failure in failures:
        stderr.print(f"[bold red]failed:[/bold red] {escape(str(failure))}")
    if cases:
        write_cases(cases, output)
        say_wrote(output, "cases", "jsonl")
        pending = sum(len(s["judgments"]) for c in cases for s in c["support"].values())
        stderr.print(
            f"wrote {len(cases)} cases to {escape(str(output))}; "
            f"{count(pending, 'claim citation')} await a support judgment"
        )
    if failures:
        total = len(cases) + len(failures)
        kept = "; no case written" if not cases else ""
        stderr.print(f"{len(failures)} of {count(total, 'question')} failed{kept}")
    return len(failures)
