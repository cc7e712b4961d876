"""assay.generate: synthetic test queries written by a model from corpus passages.

Names load lazily so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["QUERY_WRITER", "SyntheticQueries", "generate_queries"]

_LAZY = {
    "QUERY_WRITER": "assay.generate.queries",
    "SyntheticQueries": "assay.generate.queries",
    "generate_queries": "assay.generate.queries",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.generate.queries import QUERY_WRITER, SyntheticQueries, generate_queries


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.generate' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
