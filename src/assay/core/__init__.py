"""The bottom layer: errors, bounds, policies, ids and pairs, hashing, retries, progress.

Every other part of assay may import these; they import only each other.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "AssayError": "assay.core.errors",
        "InputError": "assay.core.errors",
        "Problem": "assay.core.errors",
        "ProblemLog": "assay.core.errors",
        "SystemCallError": "assay.core.errors",
        "UsageError": "assay.core.errors",
    },
    globals(),
)
