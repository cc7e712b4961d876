"""Query sets drawn from a behaviour log: the questions worth judging.

Frequency is the number of search instances (``query_id``) of a normalised
query text. Strategies:

* ``top``: the ``n`` most frequent queries (ties by text);
* ``random``: ``n`` distinct queries, uniformly, seeded;
* ``pptss``: probability proportional to size, systematic: queries sorted by
  frequency are laid end to end on the line of all searches, which is cut into
  ``n`` equal steps from a random start; the query under each cut is taken.
  A query larger than a step is taken for sure and the rest is sampled again,
  so the head of the traffic is covered and the long tail is represented in
  proportion to the traffic it carries.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.behavior.read import read_ubi
from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.querytext import query_id_for

STRATEGIES = ("top", "random", "pptss")


def query_frequencies(log: Any, application: str | None = None) -> list[tuple[str, str, int]]:
    """``(key, text, searches)`` per normalised query of a :class:`UbiLog`, most frequent first."""
    text: dict[str, str] = {}
    for rec in (*log.queries, *log.events):
        if application is not None and rec.application != application:
            continue
        if rec.query_id is not None and rec.user_query is not None:
            text.setdefault(rec.query_id, rec.user_query)
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for raw in text.values():
        key = query_id_for(raw)
        if key:
            counts[key] += 1
            first.setdefault(key, raw.strip())
    return sorted(((k, first[k], n) for k, n in counts.items()), key=lambda r: (-r[2], r[0]))


def sample_queries(
    paths: str | Path | Sequence[str | Path],
    *,
    strategy: str = "pptss",
    n: int = 50,
    seed: int = 0,
    application: str | None = None,
) -> list[tuple[str, str, int]]:
    """Draw ``n`` distinct queries from UBI logs; ``(key, text, searches)`` rows."""
    import numpy as np

    if strategy not in STRATEGIES:
        raise UsageError(f"--strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    at_least("n", n)
    freq = query_frequencies(read_ubi(paths), application)
    if not freq:
        raise UsageError("no query text in the log")
    if n >= len(freq):
        return freq
    rng = np.random.default_rng(seed)
    if strategy == "top":
        return freq[:n]
    if strategy == "random":
        picked = sorted(rng.choice(len(freq), size=n, replace=False).tolist())
        return [freq[i] for i in picked]
    return [freq[i] for i in _pptss([f[2] for f in freq], n, rng)]


def _pptss(sizes: list[int], n: int, rng: Any) -> list[int]:
    """Indices chosen by systematic PPS; certainty units first (sizes sorted descending)."""
    import numpy as np

    chosen: list[int] = []
    rest = list(range(len(sizes)))
    while True:
        need = n - len(chosen)
        total = sum(sizes[i] for i in rest)
        step = total / need
        sure = [i for i in rest if sizes[i] >= step]
        if not sure:
            break
        chosen += sure
        taken = set(sure)
        rest = [i for i in rest if i not in taken]
        if len(chosen) >= n or not rest:
            return sorted(chosen)[:n]
    edges = np.cumsum([sizes[i] for i in rest])
    cuts = rng.uniform(0, step) + step * np.arange(need)
    picks = np.searchsorted(edges, cuts, side="right")
    chosen += [rest[int(p)] for p in picks]
    return sorted(chosen)


def query_set_json(rows: list[tuple[str, str, int]], *, name: str, strategy: str) -> str:
    """Rows as a Search Relevance Workbench query set (read back as format ``srw-queries``)."""
    doc = {
        "name": name,
        "description": f"{len(rows)} queries sampled from behaviour logs ({strategy})",
        "sampling": strategy,
        "querySetQueries": [{"queryText": text} for _, text, _ in rows],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
