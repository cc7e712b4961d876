"""Rank and score fusion of several ranked lists, as pyserini's ``pyserini.fusion`` does it.

Four methods, each over per-query ranked lists (:func:`fuse_lists`) or over whole
:class:`~assay.runs.models.Run` objects (:func:`fuse_rrf`, :func:`fuse_minmax`,
:func:`fuse_interpolation`, :func:`fuse_average`):

``rrf``
    Reciprocal Rank Fusion (Cormack et al., SIGIR 2009): a document's score is
    ``sum over lists of 1 / (k_rrf + rank)``; a list that does not hold the
    document adds nothing.
``minmax``
    Each list's scores are min-max normalised per query (a list whose scores
    are all equal gets 1.0 for every document, as pyserini does), then summed
    with ``weights`` (default 1.0 each: pyserini's ``normalize``).
``interpolation``
    Exactly two lists: ``alpha * s1 + (1 - alpha) * s2`` on the raw scores
    (pyserini's ``interpolation``); a missing document contributes 0.
``average``
    ``sum(s_i * (1 / n))`` on raw scores (pyserini's ``average``).
``weighted``
    ``sum(w_i * s_i)`` on raw scores, ``weights`` default 1.0 each.
``combsum`` / ``combmnz``
    Fox and Shaw's CombSUM (sum of raw scores) and CombMNZ (CombSUM times the
    number of lists holding the document); ``normalize`` is pyserini's name of
    ``minmax``.

Run files are fused with :func:`fuse_files` (``assay fuse``): each file is
read with its rank column (:func:`load_ranked_run`), so RRF uses the ranks the
file states, as pyserini's ``TrecRun`` does, not the line positions.

Conventions copied from pyserini so that the outputs match its files: only the
first ``depth`` entries of each list take part; a list's rank is the 1-based
position in it (or, for a run whose frame carries a ``rank`` column, that
column, which is what pyserini reads from TREC files); contributions are added
in list order starting from 0.0; the result is ordered by score descending,
then doc id ascending, and cut to ``limit`` entries. Queries keep their first
appearance order across the input runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.policies import TiePolicy
from assay.runs.io import load_run, marker_lines
from assay.runs.models import Run

FusionMethod = Literal[
    "rrf", "minmax", "interpolation", "average", "weighted", "combsum", "combmnz", "normalize"
]
FUSION_METHODS: tuple[str, ...] = (
    "rrf", "minmax", "interpolation", "average", "weighted", "combsum", "combmnz", "normalize"
)  # fmt: skip

#: One ranked list: ``(doc_id, score, rank)`` in rank order. ``score`` may be
#: None for RRF; ``rank`` is 1-based.
RankedList = Sequence[tuple[str, float | None, int]]


def _check_common(n_lists: int, depth: int | None, limit: int | None) -> None:
    if n_lists < 1:
        raise UsageError("fusion needs at least one ranked list")
    for label, value in (("depth", depth), ("limit", limit)):
        if value is not None:
            at_least(label, value)


def resolve_weights(
    method: str, n_lists: int, weights: Sequence[float] | None, alpha: float
) -> list[float]:
    """Per-list multipliers for ``method`` (validated); RRF and minmax default to 1.0 each."""
    if method not in FUSION_METHODS:
        raise UsageError(
            f"unknown fusion method {method!r} (choose one of {', '.join(FUSION_METHODS)})"
        )
    if method == "interpolation":
        if n_lists != 2:
            raise UsageError(f"interpolation fuses exactly two systems or runs, got {n_lists}")
        if not 0.0 <= alpha <= 1.0:
            raise UsageError(f"interpolation alpha must lie in [0, 1], got {alpha!r}")
        return [alpha, 1 - alpha]
    if method == "average":
        return [1 / n_lists] * n_lists
    if method in ("combsum", "combmnz"):
        return [1.0] * n_lists
    if weights is None:
        return [1.0] * n_lists
    out = [float(w) for w in weights]
    if len(out) != n_lists:
        raise UsageError(f"fusion got {len(out)} weights for {n_lists} systems or runs")
    if any(w < 0 for w in out):
        raise UsageError(f"fusion weights must be >= 0, got {out}")
    return out


def _normalised(scores: list[float]) -> list[float]:
    low, high = min(scores), max(scores)
    if high - low == 0:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


def fuse_lists(
    lists: Sequence[RankedList],
    *,
    method: FusionMethod = "rrf",
    k_rrf: int = 60,
    weights: Sequence[float] | None = None,
    alpha: float = 0.5,
    depth: int | None = 1000,
    limit: int | None = 1000,
) -> list[tuple[str, float]]:
    """Fuse one query's ranked lists into ``[(doc_id, score), ...]`` in fused rank order.

    Each list holds ``(doc_id, score, rank)`` triples in rank order; an empty
    list is allowed (a system that found nothing). See the module docstring for
    the methods. ``depth`` caps each input list, ``limit`` the output (None: no
    cap). Raises :class:`UsageError` on bad parameters or missing scores.
    """
    _check_common(len(lists), depth, limit)
    if method == "rrf" and (isinstance(k_rrf, bool) or k_rrf < 0):
        raise UsageError(f"k_rrf must be >= 0, got {k_rrf!r}")
    mult = resolve_weights(method, len(lists), weights, alpha)
    method = "minmax" if method == "normalize" else method
    totals: dict[str, float] = {}
    hits: dict[str, int] = {}
    for lst, w in zip(lists, mult, strict=True):
        if method == "rrf":
            contrib = [(doc, 1 / (k_rrf + rank)) for doc, _, rank in lst]
        else:
            if any(score is None for _, score, _ in lst):
                raise UsageError(f"{method} fusion needs scores, but a ranked list has none")
            scores = [float(score) for _, score, _ in lst]  # type: ignore[arg-type]
            if method == "minmax" and scores:
                scores = _normalised(scores)
            contrib = [(doc, s * w) for (doc, _, _), s in zip(lst, scores, strict=True)]
        if depth is not None:
            contrib = contrib[:depth]
        for doc, value in contrib:
            totals[doc] = totals.get(doc, 0.0) + value
            hits[doc] = hits.get(doc, 0) + 1
    if method == "combmnz":
        totals = {doc: value * hits[doc] for doc, value in totals.items()}
    fused = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return fused if limit is None else fused[:limit]


def _run_lists(run: Run, ties: TiePolicy) -> dict[str, list[tuple[str, float | None, int]]]:
    """``{query_id: [(doc, score, rank), ...]}`` of one run, in rank order."""
    frame = run.frame
    has_rank = "rank" in frame.columns
    ordered = frame if has_rank else run.ranked(ties)
    qids = ordered["query_id"].astype(str).tolist()
    docs = ordered["doc_id"].astype(str).tolist()
    scores = ordered["score"].tolist() if run.has_scores else [None] * len(qids)
    ranks = ordered["rank"].tolist() if has_rank else None
    out: dict[str, list[tuple[str, float | None, int]]] = {}
    for i, (q, d, s) in enumerate(zip(qids, docs, scores, strict=True)):
        lst = out.setdefault(q, [])
        rank = ranks[i] if ranks is not None else len(lst) + 1
        lst.append((d, s, rank))
    return out


def fuse_runs(
    runs: Sequence[Run],
    *,
    method: FusionMethod = "rrf",
    k_rrf: int = 60,
    weights: Sequence[float] | None = None,
    alpha: float = 0.5,
    depth: int | None = 1000,
    limit: int | None = 1000,
    ties: TiePolicy = "score",
    name: str | None = None,
) -> Run:
    """Fuse whole runs query by query; the generic form of the ``fuse_*`` helpers.

    Rank order inside each input run follows ``ties`` (see
    :meth:`Run.ranked`) unless its frame carries a ``rank`` column. Queries
    missing from some runs are fused from the runs that have them. The result
    records the method and parameters in ``metadata['fusion']``.
    """
    if not runs:
        raise UsageError("fusion needs at least one run")
    per_run = [_run_lists(run, ties) for run in runs]
    query_order: dict[str, None] = {}
    for lists in per_run:
        query_order.update(dict.fromkeys(lists))
    fused = {
        q: fuse_lists(
            [lists.get(q, []) for lists in per_run],
            method=method,
            k_rrf=k_rrf,
            weights=weights,
            alpha=alpha,
            depth=depth,
            limit=limit,
        )
        for q in query_order
    }
    params = {
        "method": method,
        "runs": [run.name for run in runs],
        "depth": depth,
        "limit": limit,
    }
    if method == "rrf":
        params["k_rrf"] = k_rrf
    elif method == "interpolation":
        params["alpha"] = alpha
    elif method in ("minmax", "weighted", "normalize"):
        params["weights"] = resolve_weights(method, len(runs), weights, alpha)
    return Run.from_dict(fused, name=name or method, metadata={"fusion": params})


def fuse_rrf(
    runs: Sequence[Run],
    k: int = 60,
    *,
    depth: int | None = 1000,
    limit: int | None = 1000,
    name: str = "rrf",
) -> Run:
    """Reciprocal Rank Fusion of ``runs`` with constant ``k`` (pyserini ``--method rrf``)."""
    return fuse_runs(runs, method="rrf", k_rrf=k, depth=depth, limit=limit, name=name)


def fuse_minmax(
    runs: Sequence[Run],
    weights: Sequence[float] | None = None,
    *,
    depth: int | None = 1000,
    limit: int | None = 1000,
    name: str = "minmax",
) -> Run:
    """Weighted sum of per-query min-max normalised scores (unweighted: pyserini ``normalize``)."""
    return fuse_runs(runs, method="minmax", weights=weights, depth=depth, limit=limit, name=name)


def fuse_interpolation(
    runs: Sequence[Run],
    alpha: float = 0.5,
    *,
    depth: int | None = 1000,
    limit: int | None = 1000,
    name: str = "interpolation",
) -> Run:
    """``alpha * first + (1 - alpha) * second`` on raw scores (pyserini ``interpolation``)."""
    return fuse_runs(runs, method="interpolation", alpha=alpha, depth=depth, limit=limit, name=name)


def fuse_average(
    runs: Sequence[Run],
    *,
    depth: int | None = 1000,
    limit: int | None = 1000,
    name: str = "average",
) -> Run:
    """Mean of raw scores, a missing document counting 0 (pyserini ``average``)."""
    return fuse_runs(runs, method="average", depth=depth, limit=limit, name=name)


def load_ranked_run(path: str | Path) -> Run:
    """A TREC run file whose frame keeps the file's rank column (file order, as pyserini).

    The rows are :func:`~assay.runs.io.load_run`'s (validated, file order); the
    rank column is the 4th field of each line. Raises :class:`UsageError` when
    a rank is not a whole number.
    """
    import pandas as pd

    run = load_run(path, format="trec")
    ranks = pd.read_csv(
        path,
        sep=r"\s+",
        header=None,
        usecols=[3],
        dtype=str,
        comment=None,
        engine="c",
        skiprows=marker_lines(path),
    )[3]
    if len(ranks) != len(run.frame) or not ranks.str.fullmatch(r"[+-]?\d+").all():
        raise UsageError(f"{path}: the 4th field (rank) must be a whole number on every line")
    frame = run.frame.assign(rank=ranks.astype("int64").to_numpy())
    return Run(frame, name=run.name, path=run.path, has_scores=run.has_scores)


def fuse_files(
    paths: Sequence[str | Path],
    *,
    method: FusionMethod = "rrf",
    k_rrf: int = 60,
    weights: Sequence[float] | None = None,
    alpha: float = 0.5,
    depth: int | None = 1000,
    limit: int | None = 1000,
    name: str | None = None,
) -> Run:
    """Fuse TREC run files as pyserini's ``pyserini.fusion`` does (ranks read from the files).

    The library form of ``assay fuse``; see :func:`fuse_runs` for the parameters.
    Write the result with ``write_run(run, path, ties="given")`` to keep the
    fused order.
    """
    runs = [load_ranked_run(p) for p in paths]
    return fuse_runs(
        runs, method=method, k_rrf=k_rrf, weights=weights, alpha=alpha, depth=depth,
        limit=limit, name=name,
    )  # fmt: skip
