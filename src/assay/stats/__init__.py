"""Paired statistics: comparisons, bootstrap CIs, significance tests, power."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "ComparisonResult": "assay.stats.models",
        "bootstrap_ci_rows": "assay.stats.bootstrap",
        "holm": "assay.stats.significance",
        "minimum_detectable_difference": "assay.stats.power",
        "paired_bootstrap_ci": "assay.stats.bootstrap",
        "paired_pvalues": "assay.stats.significance",
        "queries_needed": "assay.stats.power",
        "randomization_pvalues": "assay.stats.significance",
    },
    globals(),
)
