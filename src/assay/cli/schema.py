"""``assay schema config|matrix``: print the JSON Schema of assay.toml or of a matrix file."""

from __future__ import annotations

import json

import typer

from assay.cli.app import app

schema_app = typer.Typer(help="Print JSON Schemas of assay's files.", no_args_is_help=True)
app.add_typer(schema_app, name="schema")


@schema_app.command("config")
def config_schema() -> None:
    """Print the JSON Schema of assay.toml ([systems.NAME] and [models.NAME] tables)."""
    from assay.procedures.config_schema import config_json_schema

    typer.echo(json.dumps(config_json_schema(), indent=2, ensure_ascii=False))


@schema_app.command("matrix")
def matrix_schema() -> None:
    """Print the JSON Schema of a matrix file ([matrix], [prompts.NAME], [models.NAME]...)."""
    from assay.procedures.config_schema import matrix_json_schema

    typer.echo(json.dumps(matrix_json_schema(), indent=2, ensure_ascii=False))
