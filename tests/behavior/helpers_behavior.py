"""Small builders shared by the behaviour tests: click tables from arrays, simulated logs."""

from __future__ import annotations

import numpy as np

from assay.behavior.table import ClickTable


def table_from(docs: list[list[int]], clicks: list[list[float]]) -> ClickTable:
    """A click table over one query whose pair ``p`` is doc ``d{p}``; -1 means nothing shown."""
    d = np.asarray(docs, dtype=np.int64)
    n_pairs = int(d.max()) + 1
    return ClickTable(
        query_keys=["q"],
        query_texts=["q"],
        pairs=[("q", f"d{p}") for p in range(n_pairs)],
        instance_ids=[f"i{i}" for i in range(len(d))],
        instance_query=np.zeros(len(d), dtype=np.int64),
        docs=d,
        signal=np.where(d >= 0, np.asarray(clicks, dtype=np.float64), 0.0),
    )


def shuffled_lists(rng: np.random.Generator, n_queries: int, n_docs: int, n: int) -> np.ndarray:
    """``n`` result lists: a random query, its docs in a random order (pair ids)."""
    q = rng.integers(0, n_queries, size=n)
    order = np.argsort(rng.random((n, n_docs)), axis=1)
    return q[:, None] * n_docs + order


def simulate_pbm(rng, alpha: np.ndarray, gamma: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Clicks drawn from P(click) = alpha[pair] * gamma[rank]."""
    return (rng.random(docs.shape) < alpha[docs] * gamma[None, : docs.shape[1]]).astype(float)


def simulate_dbn(rng, a: np.ndarray, s: np.ndarray, gamma: float, docs: np.ndarray) -> np.ndarray:
    """Clicks drawn from the DBN cascade (examine, attract, satisfy, continue)."""
    n, width = docs.shape
    clicks = np.zeros((n, width))
    examining = np.ones(n, dtype=bool)
    for j in range(width):
        attracted = rng.random(n) < a[docs[:, j]]
        clicked = examining & attracted
        clicks[:, j] = clicked
        satisfied = clicked & (rng.random(n) < s[docs[:, j]])
        examining = examining & ~satisfied & (rng.random(n) < gamma)
    return clicks
