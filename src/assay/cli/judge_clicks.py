"""``assay judge clicks`` / ``sample-queries`` / ``import``: judgments from logs and files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.common import (
    deprecated_flag,
    emit_result,
    resolve_format,
    say_wrote,
    validate_choice,
)
from assay.cli.judge import judge_app
from assay.cli.options import Executor
from assay.core.errors import UsageError
from assay.report.kinds import formats_of


def _weights(specs: list[str] | None) -> dict[str, float] | None:

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

    if spec is None:
        return None
    try:
        return [float(x) for x in spec.split(",")]
    except ValueError:
        raise UsageError(f"--thresholds {spec!r}: write three numbers, e.g. 0.1,0.3,0.6") from None


EventsArg = Annotated[
    list[Path], typer.Argument(help="UBI files: bulk NDJSON, JSONL, index<TAB>json, zip.")
]
PositionsArg = Annotated[
    int,
    typer.Option("--positions", help="The first result's position.ordinal: 0 or 1 (checked)."),
]
ModelArg = Annotated[str, typer.Option("--model", help="Click model: ctr | coec | pbm | dbn.")]
ApplicationArg = Annotated[
    str | None, typer.Option("--application", help="Keep one application's records.")
]
WeightArg = Annotated[
    list[str] | None,
    typer.Option("--weight", help="ACTION=WEIGHT in (0, 1], e.g. add_to_cart=0.5 (repeatable)."),
]
MinImpressionsArg = Annotated[
    int, typer.Option("--min-impressions", help="Fewest impressions for a pair to get a grade.")
]
ThresholdsArg = Annotated[
    str | None,
    typer.Option("--thresholds", help="Three ascending cut points of the estimate -> grades 0-3."),
]
CapArg = Annotated[float, typer.Option("--cap", help="Upper bound of COEC.")]
GammaArg = Annotated[
    float | None, typer.Option("--gamma", help="Fix the DBN continuation probability.")
]
LayoutArg = Annotated[
    str | None,
    typer.Option("--layout", help="Log layout: bulk | jsonl | tsv (default: detected)."),
]
MaxBytesArg = Annotated[
    int,
    typer.Option(
        "--max-bytes",
        help="Most uncompressed bytes read from the logs, all files together "
        "(default 1073741824 = 1 GiB); lines are limited to 4 MiB.",
    ),
]


@judge_app.command("clicks")
def clicks(
    events: EventsArg,
    positions: PositionsArg,
    model: ModelArg = "pbm",
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the result, in the format its suffix names: FILE.jsonl the implicit "
            "judgments (qrels), FILE.csv the per-pair statistics, FILE.json the result file, "
            "FILE.txt the summary. Repeatable.",
        ),
    ] = None,
    fmt: o.kind_format("implicit_judgments") = None,  # type: ignore[valid-type]
    stats: Annotated[
        Path | None, typer.Option("--stats", hidden=True, help="Deprecated: -o FILE.csv.")
    ] = None,
    result_json: Annotated[
        Path | None, typer.Option("--json", hidden=True, help="Deprecated: -o FILE.json.")
    ] = None,
    application: ApplicationArg = None,
    weight: WeightArg = None,
    min_impressions: MinImpressionsArg = 3,
    thresholds: ThresholdsArg = None,
    cap: CapArg = 4.0,
    gamma: GammaArg = None,
    layout: LayoutArg = None,
    max_bytes: MaxBytesArg = 1 << 30,
    executor: Executor = None,
) -> None:
    """Fit a click model on UBI logs and write graded implicit judgments (source = behavior)."""
    from assay.behavior.implicit import judge_clicks

    files = list(output or [])
    for flag, path, suffix in (("--stats", stats, ".csv"), ("--json", result_json, ".json")):
        if path is not None:
            deprecated_flag(flag, f"-o FILE{suffix}")
    fmt = resolve_format(fmt, files, formats_of("implicit_judgments"))
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
    _write_clicks(result, fmt, files, {"csv": stats, "json": result_json})


def _write_clicks(result: Any, fmt: str, files: list[Path], old: dict[str, Path | None]) -> None:
    """``-o`` files (and the deprecated flags' files) in their formats; without any,
    stdout in ``fmt`` (the one ``-o`` rule)."""
    from assay.behavior.implicit import implicit_jsonl

    if files or not any(old.values()):
        emit_result(result, fmt, files)
    for old_fmt, path in old.items():
        if path is not None:  # the deprecated flag's format, whatever the suffix
            emit_result(result, old_fmt, [path])
    wrote_jsonl = fmt == "jsonl" or any(p.suffix.lower() == ".jsonl" for p in files)
    if wrote_jsonl and (dropped := implicit_jsonl(result)[1]):
        typer.echo(f"note: {dropped} queries with no pair graded >= 1 left out", err=True)


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
    fmt: o.data_format_option("json") = "json",  # type: ignore[valid-type]
) -> None:
    """Draw a query set to judge from behaviour logs."""
    from assay.procedures.judging_files import query_set_file

    validate_choice("--format", fmt, ("json",))
    rows = query_set_file(
        events, output, strategy=strategy, n=n, seed=seed, application=application
    )
    _print_sample(rows, strategy)
    if output is not None:
        say_wrote(output, "query set", "json")


def _print_sample(rows: list[tuple[str, str, int]], strategy: str) -> None:
    """The sampled queries as a table on stdout."""
    from rich.console import Console

    from assay.report.implicit_terminal import render_sample

    render_sample(rows, strategy, Console(highlight=False, soft_wrap=True))


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
    from assay.procedures.judging_files import import_judgments as convert

    js = convert(source, output, columns=columns, judgments_format=judgments_format)
    say_wrote(output, "judgments", "jsonl")
    typer.echo(f"{output}: {len(js)} queries, {len(js.qrels)} judgments ({js.format})")
    for warning in js.warnings:
        typer.echo(f"warning: {warning}")
