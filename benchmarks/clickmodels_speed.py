"""How long do the EM click models take on a large simulated log?

``--lists`` result lists (default 50,000) of 10 documents, over 1,000 queries
of 10 documents each shown in a random order, clicks drawn from a DBN with
gamma 0.85 (seeded). Times, the median of ``--repeat`` runs: building nothing
(the click table is made once), then ``fit_pbm`` and ``fit_dbn`` to
convergence, with their iteration counts.

Run: ``.venv/bin/python benchmarks/clickmodels_speed.py [--lists 50000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from assay.behavior.clickmodels import fit_pbm
from assay.behavior.dbn import fit_dbn
from assay.behavior.table import ClickTable


def simulated_table(n_lists: int, n_queries: int = 1000, n_docs: int = 10) -> ClickTable:
    """A click table drawn from a DBN with known parameters."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 0.9, n_queries * n_docs)
    s = rng.uniform(0.1, 0.9, n_queries * n_docs)
    q = rng.integers(0, n_queries, size=n_lists)
    docs = q[:, None] * n_docs + np.argsort(rng.random((n_lists, n_docs)), axis=1)
    clicks = np.zeros(docs.shape)
    examining = np.ones(n_lists, dtype=bool)
    for j in range(n_docs):
        clicked = examining & (rng.random(n_lists) < a[docs[:, j]])
        clicks[:, j] = clicked
        satisfied = clicked & (rng.random(n_lists) < s[docs[:, j]])
        examining &= ~satisfied & (rng.random(n_lists) < 0.85)
    return ClickTable(
        query_keys=[f"q{i}" for i in range(n_queries)],
        query_texts=[f"q{i}" for i in range(n_queries)],
        pairs=[(f"q{p // n_docs}", f"d{p}") for p in range(n_queries * n_docs)],
        instance_ids=[str(i) for i in range(n_lists)],
        instance_query=q,
        docs=docs,
        signal=clicks,
    )


def main() -> None:
    """Time both EM fits and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lists", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    table = simulated_table(args.lists)
    for name, fit in (("pbm", fit_pbm), ("dbn", fit_dbn)):
        times, its = [], 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = fit(table)
            times.append(time.perf_counter() - start)
            its = result.iterations
        print(f"{name}: {statistics.median(times):.2f} s median, {its} EM iterations")


if __name__ == "__main__":
    main()
