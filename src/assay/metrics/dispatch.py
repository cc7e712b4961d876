"""One measure's per-query values: the registry names its kernel, this finds and runs it.

Kernels live in three modules by family: the common ones in :mod:`assay.metrics.kernels`,
the rest of trec_eval's in :mod:`assay.metrics.kernels_trec`, the diversity measures in
:mod:`assay.metrics.diversity`.
"""

from __future__ import annotations

import numpy as np

from assay.metrics import diversity, kernels, kernels_trec
from assay.metrics.kernels import Context
from assay.metrics.measures import Measure
from assay.metrics.registry import REGISTRY


def evaluate(m: Measure, ctx: Context) -> np.ndarray:
    """Per-query values of one measure (float64, length ``ctx.nq``)."""
    if m.judged_only:
        ctx = ctx.condensed()
        rest = tuple(p for p in m.params if p[0] != "judged_only")
        m = Measure(m.family, m.cutoff, m.rel, m.gain, rest)
    name = REGISTRY[m.family].kernel
    module = diversity if name.startswith("diversity_") else kernels
    kernel = getattr(module, name, None) or getattr(kernels_trec, name)
    return kernel(ctx, m)
