"""Results: the typed, versioned result models, their files and per-query tables."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "EvaluationResult": "assay.results.models",
        "QueryRow": "assay.results.perquery",
        "ResultModel": "assay.results.files",
        "load_result": "assay.results.files",
        "read_result_file": "assay.results.files",
        "result_model": "assay.results.files",
    },
    globals(),
)
