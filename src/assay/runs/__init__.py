"""Runs: ranked lists per query, read and written as TREC or JSONL, with a sidecar."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "FORMATS": "assay.runs.io",
        "Run": "assay.runs.models",
        "detect_format": "assay.runs.io",
        "load_run": "assay.runs.io",
        "read_sidecar": "assay.runs.sidecar",
        "sidecar_path": "assay.runs.sidecar",
        "write_run": "assay.runs.io",
        "write_sidecar": "assay.runs.sidecar",
    },
    globals(),
)
