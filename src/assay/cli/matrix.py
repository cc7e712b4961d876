"""``assay matrix CONFIG.toml``: system prompts x models x fixed evidence, asserted per case."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import emit_result, finish, resolve_format
from assay.cli.model_options import MaxFailedCalls, model_calls
from assay.report.kinds import formats_of


@app.command()
def matrix(
    config: Annotated[Path, typer.Argument(help="The matrix TOML (prompts, models, cases).")],
    fmt: o.kind_format("matrix") = None,  # type: ignore[valid-type]
    output: o.kind_output("matrix") = None,  # type: ignore[valid-type]
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
    correction: o.Correction = None,
) -> None:
    """Ask every prompt x model x case N times, check the assertions, compare the variants.

    The grid shows passing repeats per cell and the first reason a cell failed;
    gate on the result with the pass rates it records. Exit 1 when the budget
    stopped the run or more calls failed than --max-failed.
    """
    from assay.procedures.matrix_run import MatrixGateOptions, run_matrix_file

    fmt = resolve_format(fmt, output, formats_of("matrix"))
    calls = model_calls(None, None, cache_dir, offline, no_cache, None, max_failed)
    gate = MatrixGateOptions(against=gate_against, margin=margin)
    result = run_matrix_file(
        config, calls=calls, gate=gate, progress=_progress, correction=correction
    )
    finish(result, fmt, output, max_failed=max_failed, record=record, store=store, emitter=_emit)


def _emit(result: Any, fmt: str, output: Any) -> None:
    """The result (to the files, or stdout), the gate's checks after it on stdout; why the
    run stopped."""
    gate = result.gate
    if emit_result(result, fmt, output) is not None and gate is not None:
        for check in gate.checks:
            mark = "pass" if check.passed else "FAIL"
            typer.echo(
                f"gate {mark} {check.variant}: pass rate {check.baseline_pass_rate:.3f} -> "
                f"{check.candidate_pass_rate:.3f} (delta {check.delta:+.3f}, "
                f"CI {check.ci_low:+.3f}..{check.ci_high:+.3f})"
            )
        typer.echo(f"gate {'passed' if gate.passed else 'failed'}: {gate.rule}")
    if result.stopped_at_budget and (gate is None or gate.passed):
        typer.echo("stopped at the budget (max_cost): some repeats were not asked", err=True)


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
