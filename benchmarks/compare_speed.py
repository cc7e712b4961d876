"""How long does ``compare`` take on a large comparison?

5 systems (4 candidates vs a baseline) x 10,000 queries x 10,000 permutations
(and 10,000 bootstrap resamples for the CIs), for one metric and for four.
Times are the median of ``--repeat`` runs after a warm-up that pays for the
imports (numpy, scipy.stats) once. Stages timed:

* the randomization test alone, on all (candidates x metrics) rows at once;
* the bootstrap CIs alone (the same rows, 10,000 resamples);
* the whole ``compare`` call (test, CIs, effect sizes, Holm, power, the
  largest-change lists and the per-query table of the result).

Run: ``.venv/bin/python benchmarks/compare_speed.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from assay.stats.bootstrap import bootstrap_ci_rows
from assay.stats.compare import compare
from assay.stats.significance import randomization_pvalues

# The synthetic results are a test helper: one copy, in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers_synthetic import synthetic_result

N_QUERIES = 10_000
N_SYSTEMS = 5
N_PERMUTATIONS = 10_000
N_RESAMPLES = 10_000
METRICS = ("nDCG@10", "RR", "R@10", "AP")


def _results(n_metrics: int, n_queries: int = N_QUERIES) -> list[Any]:
    """``N_SYSTEMS`` synthetic results; system ``s`` is the baseline shifted by ``s * 0.005``."""
    rng = np.random.default_rng(0)
    base = {m: rng.random(n_queries) for m in METRICS[:n_metrics]}
    out = []
    for s in range(N_SYSTEMS):
        values = {
            m: np.clip(v + (s * 0.005) + rng.normal(0, 0.1, n_queries), 0, 1)
            for m, v in base.items()
        }
        out.append(synthetic_result(f"system{s}", values))
    return out


def _median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall-clock seconds of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    """Print the median seconds of each stage, for 1 and 4 metrics."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)

    compare(_results(1, 50), n_permutations=100, n_resamples=100)  # warm-up: imports
    print(
        f"{N_SYSTEMS} systems x {N_QUERIES} queries, {N_PERMUTATIONS} permutations, "
        f"{N_RESAMPLES} bootstrap resamples; median of {args.repeat} runs"
    )
    for n_metrics in (1, 4):
        results = _results(n_metrics)
        rows = (N_SYSTEMS - 1) * n_metrics
        diffs = np.random.default_rng(1).normal(0, 0.1, size=(rows, N_QUERIES))
        test = _median_seconds(
            lambda d=diffs: randomization_pvalues(d, n_permutations=N_PERMUTATIONS), args.repeat
        )
        ci = _median_seconds(
            lambda d=diffs: bootstrap_ci_rows(d, n_resamples=N_RESAMPLES), args.repeat
        )
        whole = _median_seconds(
            lambda r=results: compare(r, n_permutations=N_PERMUTATIONS, n_resamples=N_RESAMPLES),
            args.repeat,
        )
        print(
            f"{n_metrics} metric(s), {rows} rows: randomization test {test:.2f} s; "
            f"bootstrap CIs {ci:.2f} s; whole compare {whole:.2f} s"
        )


if __name__ == "__main__":
    main()
