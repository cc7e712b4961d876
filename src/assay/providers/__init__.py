"""assay.providers: language models behind OpenAI-compatible chat endpoints.

Configuration (``[models.NAME]`` in ``assay.toml``), the httpx client with the
one retry rule, the SQLite call cache and the accounting of tokens, latency
and cost. Names load lazily so that importing the package stays cheap.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "Budget": "assay.providers.accounting",
        "Usage": "assay.providers.accounting",
        "CallCache": "assay.providers.call_cache",
        "ChatAnswer": "assay.providers.client",
        "ChatClient": "assay.providers.client",
        "OfflineMiss": "assay.providers.client",
        "ProviderError": "assay.providers.client",
        "ModelConfig": "assay.providers.model_config",
        "get_model": "assay.providers.model_config",
        "model_from_table": "assay.providers.model_config",
    },
    globals(),
)
