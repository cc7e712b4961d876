"""The JSON Schemas of assay's config files, for editors (Taplo, Even Better TOML).

Each file kind is one pydantic document model: ``assay.toml`` is
:class:`assay.io.configfile.ConfigDocument` (its ``[systems.NAME]`` tables one
of the type models of :mod:`assay.systems.schema`, its ``[models.NAME]`` tables
:class:`assay.providers.model_config.ModelTable`), a matrix file is
:class:`assay.matrix.config.MatrixFile`. The schemas printed here are theirs.
"""

from __future__ import annotations

from typing import Any

from assay.io.configfile import ConfigDocument
from assay.matrix.config import MatrixFile
from assay.providers.model_config import ModelTable
from assay.systems.schema import systems_json_schema

#: The ``$schema`` dialect of the documents printed.
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_json_schema() -> dict[str, Any]:
    """A JSON Schema of ``assay.toml``: ``systems`` and ``models`` tables."""
    fields = ConfigDocument.model_fields
    return {
        "$schema": DIALECT,
        "title": "assay.toml",
        "description": "Systems under test and model endpoints of an assay project.",
        "type": "object",
        "properties": {
            "systems": systems_json_schema(),
            "models": {
                "type": "object",
                "description": fields["models"].description,
                "additionalProperties": models_schema(),
            },
        },
    }


def models_schema() -> dict[str, Any]:
    """The JSON Schema of one ``[models.NAME]`` table."""
    return ModelTable.model_json_schema()


def matrix_json_schema() -> dict[str, Any]:
    """A JSON Schema of a matrix file: :class:`~assay.matrix.config.MatrixFile`."""
    return {"$schema": DIALECT, **MatrixFile.model_json_schema(), "title": "matrix file"}
