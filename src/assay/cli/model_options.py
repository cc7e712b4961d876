"""Options and the exit rule shared by the commands that call models.

``judge llm``, ``judge claims``, ``judge answers``, ``generate queries`` and
``matrix`` take the same ``--max-cost`` and ``--max-failed`` (one
:class:`~assay.procedures.model_options.ModelCallOptions`) and end the same
way (:func:`assay.cli.common.finish`): after the report, exit 1 when more model
calls failed than ``--max-failed`` (default 0), naming the failures on stderr,
or when the calls stopped short (the budget, the circuit breaker) or items
were asked and none could be scored (the result's ``exit_code``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from assay.cli.common import emit_result, say_wrote
from assay.cli.options import Executor

ModelOpt = Annotated[str, typer.Option("--model", help="A [models.NAME] of assay.toml.")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="The assay.toml to read.")]
CostOpt = Annotated[
    float | None,
    typer.Option("--max-cost", help="Stop before spending more than USD (a finite number >= 0)."),
]
MaxFailedCalls = Annotated[
    int,
    typer.Option(
        "--max-failed",
        help="Model calls that may fail (after retries) before the command exits 1 (default 0).",
    ),
]
OfflineOpt = Annotated[
    bool, typer.Option("--offline", help="Make no call: replay the cache, exit 2 on a miss.")
]
CacheDirOpt = Annotated[
    Path | None, typer.Option("--cache-dir", help="Model-call cache folder (default .assay/cache).")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")]
SamplesOpt = Annotated[
    int,
    typer.Option("--samples", help="Ask N times (1 to 100); report the majority and flip rate."),
]

#: The options every judge command that calls models shares, defined once:
#: (parameter, annotation, default), in the order ``--help`` lists them.
JUDGE_CALL_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("samples", SamplesOpt, 1),
    ("max_cost", CostOpt, None),
    ("offline", OfflineOpt, False),
    ("cache_dir", CacheDirOpt, None),
    ("no_cache", NoCacheOpt, False),
    ("config", ConfigOpt, None),
    ("max_failed", MaxFailedCalls, 0),
    ("executor", Executor, None),
)

F = TypeVar("F", bound=Callable[..., Any])


def judge_call_options(command: F) -> F:
    """Give a judge ``command`` the shared model-call options (:data:`JUDGE_CALL_OPTIONS`)
    after its own, and call it with ``calls`` (their
    :class:`~assay.procedures.model_options.ModelCallOptions`, for its ``model``) and
    ``samples`` in place of the flags. Put it below the ``command`` decorator."""
    own = [
        p.replace(annotation=_evaluated(p.annotation, command))
        for p in inspect.signature(command).parameters.values()
        if p.name not in ("calls", "samples")
    ]
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in JUDGE_CALL_OPTIONS
    ]

    @functools.wraps(command)
    def wrapper(**params: Any) -> Any:
        flags = {name: params.pop(name) for name, _, _ in JUDGE_CALL_OPTIONS}
        calls = model_calls(
            params.get("model"),
            flags["config"],
            flags["cache_dir"],
            flags["offline"],
            flags["no_cache"],
            flags["max_cost"],
            flags["max_failed"],
        )  # --executor is set by its callback as it is parsed
        return command(**params, calls=calls, samples=flags["samples"])

    wrapper.__signature__ = inspect.Signature([*own, *shared])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in [*own, *shared]}
    return wrapper  # type: ignore[return-value]


def _evaluated(annotation: Any, command: Callable[..., Any]) -> Any:
    """A parameter's annotation as an object (a string under postponed evaluation)."""
    if isinstance(annotation, str):
        return eval(annotation, command.__globals__)
    return annotation


def model_calls(
    model: str | None,
    config: Path | None,
    cache_dir: Path | None,
    offline: bool,
    no_cache: bool,
    max_cost: float | None,
    max_failed: int,
) -> Any:
    """The :class:`~assay.procedures.model_options.ModelCallOptions` of these flags
    (``--max-cost`` finite and >= 0, ``--max-failed`` >= 0: exit 2 before any work).
    ``--executor`` is not among them: its callback sets the executor as it is parsed."""
    from assay.procedures.model_options import ModelCallOptions

    return ModelCallOptions(
        model=model,
        config=config,
        cache_dir=cache_dir,
        offline=offline,
        no_cache=no_cache,
        max_cost=max_cost,
        max_failed=max_failed,
    )


def say_stopped(result: Any) -> None:
    """Say on stderr why the calls of ``result`` stopped short: the circuit breaker, or no
    usable answer (a spent budget is in the report)."""
    from rich.console import Console
    from rich.markup import escape

    calls = getattr(result, "run", result)  # a grading run, or the result itself
    if calls.stopped_at_budget:
        return
    who = result.failed_runs()[0][0]
    if calls.circuit_open is not None:
        typer.echo(f"{who}: {calls.circuit_open}", err=True)
    elif calls.nothing_scored:
        console = Console(stderr=True, highlight=False, soft_wrap=True)
        console.print(f"[bold red]nothing scored:[/bold red] {escape(who)}: no usable answer")


def calls_emitter(data: Path | None = None, kind: str = "") -> Callable[[Any, str, Any], None]:
    """The ``emitter`` of :func:`assay.cli.common.finish` for a command calling models:
    say the ``data`` file written (``kind``), render the result (to its ``-o`` files, or
    stdout), then why the calls stopped short (:func:`say_stopped`)."""

    def emitter(result: Any, fmt: str, output: Any) -> None:
        if data is not None:
            say_wrote(data, kind, "jsonl")
        emit_result(result, fmt, output)
        say_stopped(result)

    return emitter
