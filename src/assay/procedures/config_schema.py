"""The JSON Schema of a whole ``assay.toml``, for editors (Taplo, Even Better TOML).

The ``[systems.NAME]`` tables come from :mod:`assay.systems.schema`; the
``[models.NAME]`` tables from the typed model configuration of
:mod:`assay.providers.config` when it defines one (see :func:`models_schema`:
the one place that plugs it in).
"""

from __future__ import annotations

from typing import Any

#: The ``$schema`` dialect of the document printed.
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_json_schema() -> dict[str, Any]:
    """A JSON Schema of ``assay.toml``: ``systems`` and ``models`` tables."""
    from assay.systems.schema import systems_json_schema

    models = models_schema()
    return {
        "$schema": DIALECT,
        "title": "assay.toml",
        "description": "Systems under test and model endpoints of an assay project.",
        "type": "object",
        "properties": {
            "systems": systems_json_schema(),
            "models": {
                "type": "object",
                "description": "Model endpoints: [models.NAME] tables.",
                "additionalProperties": models if models is not None else {"type": "object"},
            },
        },
    }


def models_schema() -> dict[str, Any] | None:
    """The JSON Schema of one ``[models.NAME]`` table, or None while it is not typed.

    THE ONE PLACE where the typed model configuration is plugged in: the first
    pydantic model found in :mod:`assay.providers.config` under one of the names
    below (add the name its module uses if it is another).
    """
    from pydantic import BaseModel

    from assay.providers import config as providers

    for name in ("ModelTable", "ModelSettings", "ModelConfig"):
        model = getattr(providers, name, None)
        if isinstance(model, type) and issubclass(model, BaseModel):
            return model.model_json_schema()
    return None
