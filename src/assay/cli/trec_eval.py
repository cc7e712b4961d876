"""``assay trec-eval``: a drop-in for NIST trec_eval's command line and output."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app


@app.command(name="trec-eval")
def trec_eval(
    qrels: Annotated[
        Path, typer.Argument(help="TREC qrels (query iteration doc grade), or the -R format.")
    ],
    run: Annotated[
        Path,
        typer.Argument(
            help="TREC run (query Q0 doc rank score tag), read as trec_eval 10 reads it: '#' "
            "and blank lines skipped, the rank not read, runid from the last line's tag."
        ),
    ],
    measures: Annotated[
        list[str] | None,
        typer.Option(
            "-m",
            help="A trec_eval measure, nickname (official, all_trec, set) or measure.params "
            "(P.5,10  ndcg.1=3,2=9  utility.2,-1,0,0); repeatable. Default: official.",
        ),
    ] = None,
    per_query: Annotated[bool, typer.Option("-q", help="Print every query's values too.")] = False,
    complete: Annotated[
        bool, typer.Option("-c", help="Average over every judged query (absent ones score 0).")
    ] = False,
    depth: Annotated[
        int | None, typer.Option("-M", help="Use only the first N documents of each query.")
    ] = None,
    level: Annotated[int, typer.Option("-l", help="Lowest grade counted as relevant.")] = 1,
    judged_only: Annotated[
        bool, typer.Option("-J", help="Drop unjudged documents before scoring.")
    ] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="No summary lines.")] = False,
    rel_format: Annotated[
        str,
        typer.Option(
            "-R",
            help="Judgments format: qrels; qrels_jg (second column: judgment group); prefs "
            "(qid jg jsg doc level); qrels_prefs (qrels read as preferences).",
        ),
    ] = "qrels",
    zscore_file: Annotated[
        Path | None,
        typer.Option(
            "-Z", help="Print z-scores: lines 'qid measure mean stddev' give each reference."
        ),
    ] = None,
) -> None:
    """Score a TREC run as trec_eval does and print trec_eval's output, byte for byte."""
    from assay.procedures.treceval import TrecEvalOptions, trec_eval

    options = TrecEvalOptions(
        measures=measures or [], per_query=per_query, complete=complete, depth=depth,
        level=level, judged_only=judged_only, summary=not no_summary, rel_format=rel_format,
        zscore_file=zscore_file,
    )  # fmt: skip
    lines, warnings = trec_eval(qrels, run, options)
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    if lines:
        typer.echo("\n".join(lines))
