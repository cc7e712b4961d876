"""Lazy package facades: a package lists its public names; each loads on first use.

Importing a package (``assay.store``, ``assay.systems`` ...) stays cheap: the
module that defines a name is imported only when the name is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy(
    package: str, names: dict[str, str], namespace: dict[str, Any]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` of ``package`` exporting ``names`` (name -> module)."""

    def getattr_(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    public = sorted(names)
    return public, getattr_, lambda: public
