"""Options and the exit rule shared by the commands that call models.

``judge llm``, ``judge claims``, ``judge answers``, ``generate queries`` and
``matrix`` take the same ``--max-cost`` and ``--max-failed`` and end the same
way: after the report, exit 1 when more model calls failed than
``--max-failed`` (default 0), naming the failures on stderr, or when items
were asked and none could be scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

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


def check_model_options(max_cost: float | None, max_failed: int) -> None:
    """``--max-cost`` finite and >= 0, ``--max-failed`` >= 0: exit 2 before any work."""
    from assay.cli.common import check_max_failed_option
    from assay.providers.accounting import check_max_cost

    check_max_cost(max_cost)
    check_max_failed_option(max_failed)


def exit_if_calls_failed(
    failed: Sequence[str], max_failed: int, who: str, *, nothing_scored: bool = False
) -> None:
    """Apply the rule of this module: name the failures on stderr and exit 1."""
    from rich.console import Console
    from rich.markup import escape

    from assay.failures import too_many_failed
    from assay.redact import redact_text

    message = too_many_failed(failed, max_failed, who, what="failed model calls")
    if message is None and not nothing_scored:
        return
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    if message is not None:
        text = redact_text(message.replace("`max_failed` N", "--max-failed N"))
        console.print(f"[bold red]failed model calls:[/bold red] {escape(text)}")
    if nothing_scored:
        console.print(f"[bold red]nothing scored:[/bold red] {escape(who)}: no usable answer")
    raise typer.Exit(1)
