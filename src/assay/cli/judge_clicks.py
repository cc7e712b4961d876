"""``assay judge clicks`` / ``sample-queries`` / ``import``: judgments from logs and files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.judge import judge_app
from assay.cli.options import Executor


def _weights(specs: list[str] | None) -> dict[str, float] | None:
    from assay.errors import UsageError

    if not specs:
        return None
    out = {"click": 1.0}
    for spec in specs:
        name, eq, value = spec.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise UsageError(
                f"--weight {spec!r}: write ACTION=WEIGHT, e.g. add_to_cart=0.5"
            ) from None
        if not eq or not name.strip():
            raise UsageError(f"--weight {spec!r}: write ACTION=WEIGHT, e.g. add_to_cart=0.5")
        if not math.isfinite(out[name.strip()]):
            raise UsageError(f"--weight {spec!r}: the weight must be a finite number")
    return out


def _floats(spec: str | None) -> list[float] | None:
    from assay.errors import UsageError

    if spec is None:
        return None
    try:
        return [float(x) for x in spec.split(",")]
    except ValueError:
        raise UsageError(f"--thresholds {spec!r}: write three numbers, e.g. 0.1,0.3,0.6") from None


@judge_app.command("clicks")
def clicks(
    events: Annotated[
        list[Path], typer.Argument(help="UBI files: bulk NDJSON, JSONL, index<TAB>json, zip.")
    ],
    positions: Annotated[
        int,
        typer.Option("--positions", help="The first result's position.ordinal: 0 or 1 (checked)."),
    ],
    model: Annotated[
        str, typer.Option("--model", help="Click model: ctr | coec | pbm | dbn.")
    ] = "pbm",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the implicit judgments (JSONL qrels)."),
    ] = None,
    stats: Annotated[
        Path | None, typer.Option("--stats", help="Write per-pair statistics (CSV).")
    ] = None,
    result_json: Annotated[
        Path | None, typer.Option("--json", help="Write the whole result (JSON).")
    ] = None,
    application: Annotated[
        str | None, typer.Option("--application", help="Keep one application's records.")
    ] = None,
    weight: Annotated[
        list[str] | None,
        typer.Option(
            "--weight", help="ACTION=WEIGHT in (0, 1], e.g. add_to_cart=0.5 (repeatable)."
        ),
    ] = None,
    min_impressions: Annotated[
        int, typer.Option("--min-impressions", help="Fewest impressions for a pair to get a grade.")
    ] = 3,
    thresholds: Annotated[
        str | None,
        typer.Option(
            "--thresholds", help="Three ascending cut points of the estimate -> grades 0-3."
        ),
    ] = None,
    cap: Annotated[float, typer.Option("--cap", help="Upper bound of COEC.")] = 4.0,
    gamma: Annotated[
        float | None, typer.Option("--gamma", help="Fix the DBN continuation probability.")
    ] = None,
    layout: Annotated[
        str | None,
        typer.Option("--layout", help="Log layout: bulk | jsonl | tsv (default: detected)."),
    ] = None,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes",
            help="Most uncompressed bytes read from the logs, all files together "
            "(default 1073741824 = 1 GiB); lines are limited to 4 MiB.",
        ),
    ] = 1 << 30,
    executor: Executor = None,
) -> None:
    """Fit a click model on UBI logs and write graded implicit judgments (source = behavior)."""
    from rich.console import Console

    from assay.behavior.implicit import implicit_jsonl, judge_clicks, stats_csv
    from assay.fileio import write_text_atomic
    from assay.report.implicit_terminal import render_implicit

    result = judge_clicks(
        events,
        model=model,
        positions=positions,
        weights=_weights(weight),
        application=application,
        min_impressions=min_impressions,
        thresholds=_floats(thresholds),
        cap=cap,
        gamma=gamma,
        layout=layout,
        max_bytes=max_bytes,
    )
    console = Console(highlight=False, soft_wrap=True)
    render_implicit(result, console)
    if output is not None:
        text, dropped = implicit_jsonl(result)
        write_text_atomic(output, text)
        console.print(f"wrote {output} ({dropped} queries with no pair graded >= 1 left out)")
    if stats is not None:
        write_text_atomic(stats, stats_csv(result))
        console.print(f"wrote {stats}")
    if result_json is not None:
        write_text_atomic(result_json, result.to_json())
        console.print(f"wrote {result_json}")


@judge_app.command("sample-queries")
def sample(
    events: Annotated[
        list[Path], typer.Argument(help="UBI files (queries are counted by search).")
    ],
    strategy: Annotated[
        str, typer.Option("--strategy", help="Sampling: top | random | pptss.")
    ] = "pptss",
    n: Annotated[int, typer.Option("--n", help="How many queries.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (random, pptss).")] = 0,
    application: Annotated[
        str | None, typer.Option("--application", help="Keep one application's records.")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the query set (SRW query-set JSON)."),
    ] = None,
) -> None:
    """Draw a query set to judge from behaviour logs."""
    from rich.console import Console

    from assay.behavior.sample import query_set_json, sample_queries
    from assay.fileio import write_text_atomic
    from assay.report.implicit_terminal import render_sample

    rows = sample_queries(events, strategy=strategy, n=n, seed=seed, application=application)
    console = Console(highlight=False, soft_wrap=True)
    render_sample(rows, strategy, console)
    if output is not None:
        write_text_atomic(output, query_set_json(rows, name=output.stem, strategy=strategy))
        console.print(f"wrote {output}")


@judge_app.command("import")
def import_judgments(
    source: Annotated[Path, typer.Argument(help="Graded CSV, SRW judgments or any judgment set.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Write JSONL qrels here.")],
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns", help="Graded CSV column names: query=..,query_id=..,doc_id=..,grade=.."
        ),
    ] = None,
    judgments_format: Annotated[
        str | None, typer.Option("--judgments-format", help="Format of SOURCE (detected).")
    ] = None,
) -> None:
    """Convert a judgment file (e.g. a CSV with other column names) to assay JSONL qrels."""
    from assay.fileio import write_text_atomic
    from assay.judgments.export import to_jsonl
    from assay.judgments.graded_csv import parse_columns
    from assay.judgments.load import load_judgments

    mapping = parse_columns(columns) if columns else None
    fmt = judgments_format or ("graded-csv" if mapping else None)
    js = load_judgments(source, fmt, columns=mapping)
    write_text_atomic(output, to_jsonl(js))
    typer.echo(f"wrote {output}: {len(js)} queries, {len(js.qrels)} judgments ({js.format})")
    for warning in js.warnings:
        typer.echo(f"warning: {warning}")
