"""``assay judge``: make, check and calibrate judgments from models, people and logs.

This module only declares the command group; each family of subcommands lives in
its own module (``judge_models``, ``judge_clicks``, ...) and registers itself on
:data:`judge_app` when :mod:`assay.cli.app` imports it.
"""

from __future__ import annotations

import typer

from assay.cli.app import app

judge_app = typer.Typer(
    name="judge",
    help="Make, check and calibrate judgments: model graders, agreement, click models.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(judge_app, name="judge")
