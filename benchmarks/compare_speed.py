"""How long does ``compare`` take on a large comparison?

5 systems (4 candidates vs a baseline) x 10,000 queries x 10,000 permutations
(and 10,000 bootstrap resamples for the CIs), for one metric and for four.
Run: ``.venv/bin/python benchmarks/compare_speed.py``.
"""

from __future__ import annotations

import time

import numpy as np

from assay.stats.compare import compare
from assay.stats.significance import randomization_pvalues
from assay.stats.synthetic import synthetic_result

N_QUERIES = 10_000
N_SYSTEMS = 5
METRICS = ("nDCG@10", "RR", "R@10", "AP")


def _results(n_metrics: int) -> list:
    rng = np.random.default_rng(0)
    base = {m: rng.random(N_QUERIES) for m in METRICS[:n_metrics]}
    out = []
    for s in range(N_SYSTEMS):
        values = {
            m: np.clip(v + (s * 0.005) + rng.normal(0, 0.1, N_QUERIES), 0, 1)
            for m, v in base.items()
        }
        out.append(synthetic_result(f"system{s}", values))
    return out


def main() -> None:
    """Print seconds for the test alone and for the whole comparison."""
    for n_metrics in (1, 4):
        results = _results(n_metrics)
        rows = (N_SYSTEMS - 1) * n_metrics
        diffs = np.random.default_rng(1).normal(0, 0.1, size=(rows, N_QUERIES))
        t0 = time.perf_counter()
        randomization_pvalues(diffs, n_permutations=10_000)
        t1 = time.perf_counter()
        compare(results, n_permutations=10_000, n_resamples=10_000)
        t2 = time.perf_counter()
        print(
            f"{N_SYSTEMS} systems x {N_QUERIES} queries x 10000 permutations, "
            f"{n_metrics} metric(s): randomization test {t1 - t0:.2f} s; "
            f"full compare (test + 10000-resample CIs + tables) {t2 - t1:.2f} s"
        )


if __name__ == "__main__":
    main()
