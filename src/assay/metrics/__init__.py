"""Retrieval measures: declared values, one registry, vectorised trec_eval-exact kernels.

``parse_measure``/``parse_measures`` read ir_measures names (``nDCG@10``,
``P(rel=2)@5``); ``compute`` scores a run on a judgment set; ``aggregate`` gives
the summary value as trec_eval prints it (mean, or sum for counts).
"""

from __future__ import annotations

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "Measure": "assay.metrics.measures",
        "parse_measure": "assay.metrics.measures",
        "parse_measures": "assay.metrics.measures",
        "aggregate": "assay.metrics.engine",
        "compute": "assay.metrics.engine",
    },
    globals(),
)
