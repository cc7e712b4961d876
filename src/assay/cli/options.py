"""Command-line options shared by several commands, defined once.

Each alias is an ``Annotated`` type a command uses as a parameter annotation, so
the same option has the same name, short flag and help text everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Judgments = Annotated[
    Path, typer.Argument(help="Judgment set: JSONL, CSV, JSON, TREC qrels or a BEIR folder.")
]
SystemSpec = Annotated[
    str | None,
    typer.Option(
        "--system",
        "-s",
        help="System: a name in assay.toml, a type (keyword, bm25, vector) or module:function.",
    ),
]
Config = Annotated[Path | None, typer.Option("--config", help="assay.toml declaring systems.")]
Corpus = Annotated[
    Path | None,
    typer.Option("--corpus", help="Corpus for built-in systems (CSV, JSONL, BEIR corpus.jsonl)."),
]
IdField = Annotated[str | None, typer.Option("--id-field", help="Corpus id field.")]
TextFields = Annotated[
    list[str] | None, typer.Option("--text-field", help="Corpus text field (repeatable).")
]
Depth = Annotated[int, typer.Option("-k", "--depth", help="How many results to ask a system for.")]
Metrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metric",
        "-m",
        help="Metric, ir_measures names (repeatable). Default: R@5 R@10 RR nDCG@10.",
    ),
]
By = Annotated[
    list[str] | None,
    typer.Option("--by", help="Group by a metadata field (repeatable); ';'-separated tags split."),
]
Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write the report here (format from the suffix)."),
]
Missing = Annotated[
    str,
    typer.Option(
        "--missing",
        help="zero: judged queries absent from a run score 0 (trec_eval -c); skip: drop them.",
    ),
]
Ties = Annotated[
    str,
    typer.Option(
        "--ties", help="score: ties ordered by doc id descending (trec_eval); given: file order."
    ),
]
JudgmentsFormat = Annotated[
    str | None,
    typer.Option(
        "--judgments-format",
        help="jsonl | csv | json | trec | beir | srw | srw-queries | graded-csv (detected).",
    ),
]
Split = Annotated[str, typer.Option("--split", help="BEIR split.")]
Store = Annotated[
    str | None,
    typer.Option("--store", help="History store URL (default .assay/history.db or $ASSAY_STORE)."),
]
Record = Annotated[
    bool,
    typer.Option(
        "--record/--no-record",
        help="Record the result in the history store (read by `gate --baseline last`).",
    ),
]
AllowVersionMismatch = Annotated[
    bool,
    typer.Option(
        "--allow-version-mismatch",
        help="Accept runs or results made on another judgment-set version (said in the report).",
    ),
]
Queries = Annotated[
    Path | None,
    typer.Option("--queries", help="Queries file for TREC qrels (TSV id<TAB>text or JSONL)."),
]
