"""assay.providers: language models behind OpenAI-compatible chat endpoints.

Configuration (``[models.NAME]`` in ``assay.toml``), the httpx client with the
one retry rule, the SQLite call cache and the accounting of tokens, latency
and cost. Names load lazily so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "Budget",
    "CallCache",
    "ChatAnswer",
    "ChatClient",
    "ModelConfig",
    "OfflineMiss",
    "ProviderError",
    "Usage",
    "get_model",
    "model_from_table",
]

_LAZY = {
    "Budget": "assay.providers.accounting",
    "Usage": "assay.providers.accounting",
    "CallCache": "assay.providers.cache",
    "ChatAnswer": "assay.providers.client",
    "ChatClient": "assay.providers.client",
    "OfflineMiss": "assay.providers.client",
    "ProviderError": "assay.providers.client",
    "ModelConfig": "assay.providers.config",
    "get_model": "assay.providers.config",
    "model_from_table": "assay.providers.config",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.providers.accounting import Budget, Usage
    from assay.providers.cache import CallCache
    from assay.providers.client import ChatAnswer, ChatClient, OfflineMiss, ProviderError
    from assay.providers.config import ModelConfig, get_model, model_from_table


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.providers' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
