"""The history store: record results, list them over time, fetch one back."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "HistoryEntry": "assay.store.api",
        "HistoryReport": "assay.store.history",
        "Store": "assay.store.api",
        "build_history": "assay.store.history",
        "index_columns": "assay.store.columns",
        "open_store": "assay.store.api",
        "record_gate_quietly": "assay.store.api",
        "record_quietly": "assay.store.api",
    },
    globals(),
)
