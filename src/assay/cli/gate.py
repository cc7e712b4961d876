"""``assay gate``: fail a CI pipeline when a candidate is worse than its baseline.

Exit codes: 0 pass, 1 regression, 2 invalid input (including a baseline scored
on another judgment-set version, unless ``--allow-version-mismatch``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

if TYPE_CHECKING:  # pragma: no cover
    from assay.results import EvaluationResult


def _baseline(
    spec: str, store_url: str | None, system: str, judgments: Any
) -> tuple[Any, int | None]:
    """Resolve ``--baseline`` to an evaluation result and, when from the store, its run id."""
    from assay.errors import UsageError
    from assay.results import EvaluationResult

    path = Path(spec)
    if spec != "last" and path.exists():
        return EvaluationResult.from_file(path), None
    if spec == "last" or spec.isdigit():
        from assay.store.api import open_store

        with open_store(store_url) as store:
            if spec == "last":
                run_id = store.last_id(system=system, judgments=judgments.name)
                if run_id is None:
                    raise UsageError(
                        f"--baseline last: no recorded evaluation of {system!r} on "
                        f"{judgments.name!r} in {store!r} that can serve as a baseline "
                        "(candidates of failed gates never do); record one "
                        "(assay evaluate --record) or pass a result file"
                    )
            else:
                run_id = int(spec)
            result = store.get(run_id)
        if getattr(result, "kind", None) != "evaluation":
            raise UsageError(f"--baseline {spec}: run {run_id} is not an evaluation result")
        return result, run_id
    raise UsageError(
        f"--baseline {spec!r}: not a result file, 'last', or a run id "
        "(a result file is written by assay evaluate -f json -o FILE)"
    )


def _candidate(
    judgments: Any,
    run: Path | None,
    system: str | None,
    *,
    measures: list[Any],
    config: Path | None,
    corpus: Path | None,
    k: int,
    allow_version_mismatch: bool = False,
    missing: str = "zero",
    ties: str = "score",
) -> EvaluationResult:
    from assay.cli.common import build_cli_system
    from assay.evaluation import run_live, score_run

    if run is not None:
        from assay.runs.io import load_run
        from assay.runs.sidecar import run_info_from_sidecar

        info: dict[str, Any] = run_info_from_sidecar(
            run, judgments.version, allow_version_mismatch=allow_version_mismatch
        )
        the_run = load_run(run)
        info.update({"name": the_run.name, "path": str(run)})
    else:
        sys_obj = build_cli_system(system or "", config=config, corpus=corpus)
        the_run, info = run_live(sys_obj, judgments, k=k, progress=True)
    return score_run(the_run, judgments, measures, missing=missing, ties=ties, info=info)


@app.command()
def gate(
    judgments: Annotated[Path, typer.Argument(help="Judgment set the candidate is scored on.")],
    run: Annotated[
        Path | None, typer.Argument(help="Candidate run file (TREC or JSONL). Omit with --system.")
    ] = None,
    baseline: Annotated[
        str,
        typer.Option(
            "--baseline",
            "-b",
            help="Baseline: an evaluation result file (JSON), 'last' (the store's latest "
            "evaluation of the same system on the same judgment set that was recorded on "
            "its own or passed a gate) or a store run id.",
        ),
    ] = "",
    system: Annotated[
        str | None, typer.Option("--system", "-s", help="Run this system as the candidate.")
    ] = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    k: o.Depth = 100,
    metric: Annotated[
        list[str] | None, typer.Option("--metric", "-m", help="Gated metric (repeatable).")
    ] = None,
    margin: Annotated[
        float, typer.Option("--margin", help="Largest tolerated drop of the mean.")
    ] = 0.01,
    by: Annotated[
        list[str] | None,
        typer.Option("--by", help="Also gate every slice of this metadata field (repeatable)."),
    ] = None,
    min_n: Annotated[
        int, typer.Option("--min-n", help="Slices with fewer queries are listed, not gated.")
    ] = 10,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha", help="One-sided level: the (1 - 2*alpha) CI's lower bound is used."
        ),
    ] = 0.05,
    mode: Annotated[
        str,
        typer.Option(
            "--mode", help="Gate mode: noninferiority (CI lower bound) or threshold (mean)."
        ),
    ] = "noninferiority",
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    n_resamples: Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")] = 10000,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Write a Markdown report (PR comment).")
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML.")] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the gate result as JSON.")
    ] = None,
    save_result: Annotated[
        Path | None,
        typer.Option("--save-result", help="Write the candidate's evaluation result file."),
    ] = None,
    store: o.Store = None,
    record: Annotated[
        bool,
        typer.Option(
            "--record/--no-record",
            help="Record the candidate's evaluation and the gate result (a store error "
            "only warns).",
        ),
    ] = True,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    quiet: o.Quiet = False,
) -> None:
    """Gate a candidate (run file or --system) against a baseline: exit 1 on a regression."""
    from rich.console import Console

    from assay.cli.common import load_cli_judgments, validate_choice
    from assay.errors import UsageError
    from assay.metrics.measures import parse_measures
    from assay.progress import set_quiet
    from assay.report.output import write_text_atomic
    from assay.store.gate import MODES, run_gate

    set_quiet(quiet)
    validate_choice("--mode", mode, MODES)
    validate_choice("--missing", missing, ("zero", "skip"))
    validate_choice("--ties", ties, ("score", "given"))
    if not baseline:
        raise UsageError("--baseline is required (a result file, 'last' or a run id)")
    if (run is None) == (system is None):
        raise UsageError("give either a RUN file or --system NAME (not both)")
    if k < 1:
        raise UsageError(f"-k must be a whole number >= 1, got {k}")
    measures = parse_measures(metric or ["nDCG@10"])
    js = load_cli_judgments(judgments, judgments_format, split=split, queries=queries)
    for field_name in by or []:
        js.groups(field_name)
    candidate = _candidate(
        js,
        run,
        system,
        measures=measures,
        config=config,
        corpus=corpus,
        k=k,
        allow_version_mismatch=allow_version_mismatch,
        missing=missing,
        ties=ties,
    )
    base, base_id = _baseline(baseline, store, candidate.run.name, js)
    result = run_gate(
        candidate,
        base,
        [m.name for m in measures],
        margin=margin,
        mode=mode,
        by=by or [],
        min_n=min_n,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
        allow_version_mismatch=allow_version_mismatch,
        baseline_source=baseline if base_id is None else f"run {base_id}",
    )
    result = result.model_copy(update={"baseline_run_id": base_id})
    if record:
        from assay.store.api import record_gate_quietly

        # a store failure warns on stderr; the verdict and the reports stand
        result = record_gate_quietly(candidate, result, store)
    if save_result is not None:
        write_text_atomic(save_result, candidate.to_json())
    if markdown is not None:
        from assay.report.gate_markdown import render_markdown

        write_text_atomic(markdown, render_markdown(result))
    if junit is not None:
        from assay.report.gate_junit import render_junit

        write_text_atomic(junit, render_junit(result))
    if json_out is not None:
        write_text_atomic(json_out, result.to_json())
    from assay.report.gate_terminal import render_terminal

    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 120
    render_terminal(result, console)
    if not result.passed:
        raise typer.Exit(1)
