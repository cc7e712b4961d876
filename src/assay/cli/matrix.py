"""``assay matrix CONFIG.toml``: system prompts x models x fixed evidence, asserted per case."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.model_options import MaxFailedCalls

_FORMATS = ("table", "plain", "json", "markdown", "html")


@app.command()
def matrix(
    config: Annotated[Path, typer.Argument(help="The matrix TOML (prompts, models, cases).")],
    fmt: o.format_option(*_FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*_FORMATS) = None,  # type: ignore[valid-type]
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="Folder of the model-call cache.")
    ] = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="Replay the cache only; fail on a missing call.")
    ] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write.")] = False,
    gate_against: Annotated[
        Path | None,
        typer.Option(
            "--gate-against",
            help="A baseline matrix result (JSON): exit 1 unless every shared variant's "
            "pass rate is non-inferior within --margin.",
        ),
    ] = None,
    margin: Annotated[
        float, typer.Option("--margin", help="Pass rate a variant may lose (with --gate-against).")
    ] = 0.05,
    store: o.Store = None,
    record: o.Record = True,
    max_failed: MaxFailedCalls = 0,
    executor: o.Executor = None,
) -> None:
    """Ask every prompt x model x case N times, check the assertions, compare the variants.

    The grid shows passing repeats per cell and the first reason a cell failed;
    gate on the result with the pass rates it records. Exit 1 when the budget
    stopped the run or more calls failed than --max-failed.
    """
    from assay.cli.common import check_max_failed_option, emit_result, resolve_format
    from assay.matrix import load_matrix, run_matrix

    fmt = resolve_format(fmt, output, _FORMATS)
    check_max_failed_option(max_failed)
    cfg = load_matrix(config)
    baseline = None
    if gate_against is not None:  # checked before the first model call
        from assay.matrix.gate import check_baseline
        from assay.matrix.result import MatrixResult

        baseline = MatrixResult.from_file(gate_against)
        check_baseline(baseline, cfg.cases_version, cfg.variants(), margin=margin)
    total = len(cfg.prompts) * len(cfg.providers) * len(cfg.cases) * cfg.repeats
    with _progress(total) as advance:
        result = run_matrix(
            cfg,
            cache_dir=None if cache_dir is None else str(cache_dir),
            offline=offline,
            no_cache=no_cache,
            on_attempt=advance,
        )
    if output:  # the files, and the grid where the command ran
        emit_result(result, fmt, output)
    emit_result(result, "table" if output else fmt, None)
    if record:
        from assay.cli.common import record_result

        record_result(result, store)
    if baseline is not None:
        from assay.matrix.gate import gate_matrix

        gate = gate_matrix(result, baseline, margin=margin)
        for check in gate.checks:
            mark = "pass" if check.passed else "FAIL"
            typer.echo(
                f"gate {mark} {check.variant}: pass rate {check.baseline_pass_rate:.3f} -> "
                f"{check.candidate_pass_rate:.3f} (delta {check.delta:+.3f}, "
                f"CI {check.ci_low:+.3f}..{check.ci_high:+.3f})"
            )
        typer.echo(f"gate {'passed' if gate.passed else 'failed'}: {gate.rule}")
        if not gate.passed:
            raise typer.Exit(1)
    _exit(result, max_failed)


def _exit(result: Any, max_failed: int) -> None:
    """Exit 1 at a spent budget or more failed calls than ``--max-failed``."""
    from assay.cli.model_options import exit_if_calls_failed

    if result.stopped_at_budget:
        typer.echo("stopped at the budget (max_cost): some repeats were not asked", err=True)
        raise typer.Exit(1)
    exit_if_calls_failed(result.failed_calls(), max_failed, f"matrix {result.name}")


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr (only on a terminal) with the running cost."""
    import sys

    if not sys.stderr.isatty():
        yield lambda attempt: None
        return
    import threading

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    spent = [0.0]
    lock = threading.Lock()
    with Progress(
        TextColumn("asking"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("", total=total)

        def advance(attempt: Any) -> None:  # called from the runner's worker threads
            with lock:
                spent[0] += 0.0 if attempt.cached else attempt.cost
                bar.update(task, advance=1, description=f"${spent[0]:.4f}")

        yield advance
