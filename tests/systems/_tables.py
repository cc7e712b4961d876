"""Build a system the registry's way: its table checked by the type's model, then built."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from assay.systems.config import SYSTEM_TYPES
from assay.systems.schema import validated_table


def table_factory(default_type: str) -> Any:
    """A ``from_config(name, table, *, corpus, base_dir)`` taking a plain table (tests)."""

    def from_config(name: str, table: dict[str, Any], *, corpus: Any, base_dir: Path) -> Any:
        table = {"type": default_type, **table}
        extra = {"resolve": table.pop("resolve")} if "resolve" in table else {}
        module = importlib.import_module(SYSTEM_TYPES[table["type"]])
        options = validated_table(name, table)
        return module.from_config(name, options, corpus=corpus, base_dir=base_dir, **extra)

    return from_config
