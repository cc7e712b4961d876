"""``assay gate``: fail a CI pipeline when a candidate is worse than its baseline.

Exit codes: 0 pass, 1 regression, 2 invalid input (including a baseline scored
on another judgment-set version, unless ``--allow-version-mismatch``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import (
    deprecated_flag,
    emit_result,
    finish,
    options_from,
    resolve_format,
    say_wrote,
    suffix_format,
)
from assay.report.kinds import formats_of

Run = Annotated[
    Path | None, typer.Argument(help="Candidate run file (TREC or JSONL). Omit with --system.")
]
Baseline = Annotated[
    str,
    typer.Option(
        "--baseline",
        "-b",
        help="Baseline: an evaluation result file (JSON), 'last' (the store's latest "
        "evaluation of the same system on the same judgment set that was recorded on "
        "its own or passed a gate) or a store run id.",
    ),
]
System = Annotated[
    str | None, typer.Option("--system", "-s", help="Run this system as the candidate.")
]
Metric = Annotated[
    list[str] | None, typer.Option("--metric", "-m", help="Gated metric (repeatable).")
]
Margin = Annotated[float, typer.Option("--margin", help="Largest tolerated drop of the mean.")]
By = Annotated[
    list[str] | None,
    typer.Option("--by", help="Also gate every slice of this metadata field (repeatable)."),
]
MinN = Annotated[
    int, typer.Option("--min-n", help="Slices with fewer queries are listed, not gated.")
]
Alpha = Annotated[
    float,
    typer.Option("--alpha", help="One-sided level: the (1 - 2*alpha) CI's lower bound is used."),
]
Mode = Annotated[
    str,
    typer.Option("--mode", help="Gate mode: noninferiority (CI lower bound) or threshold (mean)."),
]
Seed = Annotated[int, typer.Option("--seed", help="Bootstrap seed.")]
NResamples = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]
Record = Annotated[
    bool,
    typer.Option(
        "--record/--no-record",
        help="Record the candidate's evaluation and the gate result (a store error only warns).",
    ),
]


@app.command()
def gate(
    judgments: Annotated[Path, typer.Argument(help="Judgment set the candidate is scored on.")],
    run: Run = None,
    baseline: Baseline = "",
    system: System = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    metric: Metric = None,
    margin: Margin = 0.01,
    by: By = None,
    min_n: MinN = 10,
    alpha: Alpha = 0.05,
    mode: Mode = "noninferiority",
    seed: Seed = 0,
    n_resamples: NResamples = 10000,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    fmt: o.kind_format("gate") = None,  # type: ignore[valid-type]
    output: o.kind_output("gate") = None,  # type: ignore[valid-type]
    markdown: Annotated[
        Path | None, typer.Option("--markdown", hidden=True, help="Deprecated: -o FILE.md.")
    ] = None,
    junit: Annotated[
        Path | None, typer.Option("--junit", hidden=True, help="Deprecated: -o FILE.xml.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", hidden=True, help="Deprecated: -o FILE.json.")
    ] = None,
    save_result: Annotated[
        Path | None,
        typer.Option(
            "--save-result",
            hidden=True,
            help="Deprecated: write the candidate's evaluation with `assay evaluate -o`.",
        ),
    ] = None,
    store: o.Store = None,
    record: Record = True,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    ignore_identical_ids: o.IgnoreIdenticalIds = False,
    retries: o.Retries = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    quiet: o.Quiet = False,
    executor: o.Executor = None,
    correction: o.Correction = None,
) -> None:
    """Gate a candidate (run file or --system) against a baseline: exit 1 on a regression."""
    from assay.procedures.gating import gate as run_gate
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.procedure_options import GateOptions

    fmt = resolve_format(fmt, output, formats_of("gate"))
    files = _gate_files(fmt, output, markdown, junit, json_out)
    params = locals()
    result = run_gate(
        judgments,
        run,
        baseline,
        metric,
        options_from(ScoringOptions, params),
        rule=options_from(GateOptions, params),
        source=options_from(SourceOptions, params, text_fields="text_field"),
    )
    result = _saved(_record(result, store) if record else result, save_result)
    finish(result, fmt, None, emitter=lambda r, f, _: _write_gate(r, f, files))


def _record(result: Any, store: str | None) -> Any:
    """Record the candidate's evaluation and the gate result (a store failure only warns);
    the result with the candidate's run id."""
    from assay.store.api import record_gate_quietly

    return record_gate_quietly(result.candidate_evaluation, result, store)


def _saved(result: Any, path: Path | None) -> Any:
    """The deprecated ``--save-result FILE``: the candidate's evaluation as JSON; ``result``."""
    if path is None:
        return result
    from assay.io.fileio import write_text_atomic

    deprecated_flag("--save-result", "`assay evaluate JUDGMENTS RUN -o FILE.json`")
    write_text_atomic(path, result.candidate_evaluation.to_json())
    say_wrote(path, "evaluation", "json")
    return result


def _gate_files(
    fmt: str,
    output: list[Path] | None,
    markdown: Path | None,
    junit: Path | None,
    json_out: Path | None,
) -> list[tuple[Path, str]]:
    """Each file to write with its format: ``-o`` files (format from ``-f`` or the suffix)
    and those of the deprecated ``--markdown``/``--junit``/``--json`` (warned about)."""

    paths = list(output or [])
    files = [(p, fmt if len(paths) == 1 else suffix_format(p, formats_of("gate"))) for p in paths]
    for flag, path, file_fmt, suffix in (
        ("--markdown", markdown, "markdown", ".md"),
        ("--junit", junit, "junit", ".xml"),
        ("--json", json_out, "json", ".json"),
    ):
        if path is not None:
            deprecated_flag(flag, f"-o FILE{suffix}")
            files.append((path, file_fmt))
    return files


def _write_gate(result: Any, fmt: str, files: list[tuple[Path, str]]) -> None:
    """Each file in its format; without files, stdout in ``fmt`` (the one ``-o`` rule)."""
    for path, file_fmt in files:
        emit_result(result, file_fmt, [path])
    if not files:
        emit_result(result, fmt, None)
