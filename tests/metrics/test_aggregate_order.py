"""The evaluation's aggregate adds per-query values one after the other, as trec_eval's loop.

numpy's ``mean`` sums pairwise; on many queries the two differ in the last bits,
enough to move trec_eval's 4th printed decimal at an exact .5. The expected sum
here is Python's own left-to-right ``+=`` loop, not our helper.
"""

from __future__ import annotations

import math

import numpy as np

from assay.metrics.engine import aggregate


def _c_loop(values: list[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


def test_mean_sum_and_gmean_add_in_query_order() -> None:
    rng = np.random.default_rng(3)
    values = rng.random(5000).tolist()
    assert float(np.mean(values)) != _c_loop(values) / len(values)  # the case that matters
    assert aggregate("nDCG@10", values) == _c_loop(values) / len(values)
    assert aggregate("NumRet", values) == _c_loop(values)
    logs = [math.log(max(v, 1e-5)) for v in values]
    assert aggregate("GMAP", values) == math.exp(_c_loop(logs) / len(values))
