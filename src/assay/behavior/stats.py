"""The click models' sufficient statistics: computed per shard of a log, reduced exactly.

A shard is every record of some ``query_id`` values (a search instance never
spans two shards). :func:`shard_stats` reads one shard into
:class:`ShardStats`, keyed by the pairs' text: impressions per (pair, rank,
signal level), and the distinct result lists (pairs in rank order, clicked or
not) with how often each was seen, plus the counts and the ingredients of the
checks that need the whole log. :func:`reduce_stats` adds the shards up
(integer counts only, so the sum is exact in any order), orders queries and
pairs as one pass over the whole log would, makes those checks, and returns
:class:`ClickStats`, on which every click model runs its EM iterations.

Both executors use these two functions: locally the whole log is one shard;
on Ray each shard is one task. The statistics, and so every fit, are the same
to the last bit whatever the number of shards.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from assay.behavior.lists import compact
from assay.behavior.models import UbiEvent, UbiLog, UbiQuery
from assay.behavior.table import (
    ClickTable,
    assumptions,
    check_base,
    check_hit_positions,
    shard_table,
)
from assay.core.errors import InputError


@dataclass(frozen=True)
class StatsParams:
    """How the log is read into statistics (the same for every shard)."""

    positions: int
    weights: dict[str, float]
    application: str | None = None
    impression_action: str = "impression"
    max_rank: int = 50
    n_events: int = 0

    @property
    def levels(self) -> np.ndarray:
        """The signal values a cell can hold: 0 and every action weight, ascending."""
        return np.asarray(sorted({0.0, *map(float, self.weights.values())}))


@dataclass(frozen=True)
class ShardStats:
    """One shard's statistics, its pairs named by text (see the module docstring)."""

    query_keys: list[str]
    query_texts: list[str]
    key_first: np.ndarray  # per query key, the order of its first list
    pairs: list[tuple[str, str]]
    pair_first: np.ndarray  # per pair, (list order, place in that list)
    width: int
    cells: np.ndarray  # rows (pair, rank, level, impressions)
    list_rows: np.ndarray  # distinct lists: pair ids (-1 padding), then 0/1 clicks
    list_count: np.ndarray
    counts: dict[str, int]
    checks: dict[str, Any]
    fault: tuple[int, BaseException] | None = None


@dataclass(frozen=True)
class ClickStats:
    """The reduced statistics every click model fits (pairs in their order in the log)."""

    query_keys: list[str]
    query_texts: list[str]
    pairs: list[tuple[str, str]]
    width: int
    cell_pair: np.ndarray  # per shown (pair, rank) cell, ascending
    cell_rank: np.ndarray
    cell_n: np.ndarray  # impressions (int)
    cell_c: np.ndarray  # weighted clicks
    list_pid: np.ndarray  # distinct result lists, pair ids in rank order, -1 padding
    list_click: np.ndarray
    list_count: np.ndarray  # how often each was seen
    counts: dict[str, int] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)

    def pair_impressions(self) -> np.ndarray:
        """Impressions per pair."""
        return np.bincount(self.cell_pair, self.cell_n, len(self.pairs)).astype(np.int64)

    def pair_clicks(self) -> np.ndarray:
        """Weighted clicks per pair."""
        return np.bincount(self.cell_pair, self.cell_c, len(self.pairs))


def shard_stats(params: StatsParams, part: tuple[Any, ...]) -> ShardStats:
    """The statistics of one shard ``(queries, events, query order, event order)``."""

    queries, events, q_order, e_order = part
    try:
        table, checks = shard_table(
            queries,
            events,
            q_order,
            e_order,
            n_events=params.n_events,
            positions=params.positions,
            weights=params.weights,
            application=params.application,
            impression_action=params.impression_action,
            max_rank=params.max_rank,
        )
    except InputError as exc:
        order = getattr(exc, "order", None)
        if order is None:
            raise
        return _failed(int(order), exc)
    return of_table(table, params.levels, checks)


def _failed(order: int, exc: BaseException) -> ShardStats:
    empty = np.zeros((0, 2), dtype=np.int64)
    return ShardStats(
        [], [], empty[:, 0], [], empty, 1, empty, empty, empty[:, 0], {}, {}, (order, exc)
    )


def of_table(table: ClickTable, levels: np.ndarray, checks: dict[str, Any]) -> ShardStats:
    """The statistics of one click table (a shard's, or any table: orders default to its own)."""

    shown = table.shown
    n_pairs, width = len(table.pairs), table.docs.shape[1]
    pid, rank = table.docs[shown], np.nonzero(shown)[1]
    level = np.searchsorted(levels, table.signal[shown])
    code = (pid * width + rank) * len(levels) + level
    cells, n = np.unique(code, return_counts=True)
    cells = np.stack(
        [cells // len(levels) // width, cells // len(levels) % width, cells % len(levels), n],
        axis=1,
    )
    lists = compact(table)
    rows, count = np.unique(
        np.concatenate([lists.pid, lists.click.astype(np.int64)], axis=1),
        axis=0,
        return_counts=True,
    )
    inst = (
        np.arange(len(table.instance_ids)) if table.instance_order is None else table.instance_order
    )
    firsts = table.pair_first
    if firsts is None:
        firsts = np.stack([np.arange(n_pairs), np.zeros(n_pairs, dtype=np.int64)], axis=1)
    key_first = np.full(len(table.query_keys), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(key_first, table.instance_query, inst)
    return ShardStats(
        list(table.query_keys),
        list(table.query_texts),
        key_first,
        list(table.pairs),
        firsts.astype(np.int64).reshape(-1, 2),
        width,
        cells.astype(np.int64).reshape(-1, 4),
        rows,
        count.astype(np.int64),
        dict(table.counts),
        checks,
    )


def reduce_stats(parts: Sequence[ShardStats], params: StatsParams) -> ClickStats:
    """The shards' statistics added up, checked as one pass over the whole log would be."""

    faults = [p.fault for p in parts if p.fault is not None]
    if faults:
        raise min(faults, key=lambda f: f[0])[1]
    firsts = [p.checks["base"]["first"] for p in parts if p.checks["base"]["first"]]
    base = {
        "zero_seen": any(p.checks["base"]["zero_seen"] for p in parts),
        "first": min(firsts, default=None),
        "logged": sum(p.checks["base"]["logged"] for p in parts),
    }
    check_base(base, params.positions)
    counts = {k: sum(p.counts[k] for p in parts) for k in parts[0].counts}
    offs = [p.checks["first_off"] for p in parts if p.checks["first_off"] is not None]
    check_hit_positions(counts, min(offs, key=lambda o: o[0], default=None), params.positions)
    keys, texts = _ordered_keys(parts)
    pairs, maps = _ordered_pairs(parts)
    width = max(p.width for p in parts)
    cell_pair, cell_rank, cell_n, cell_c = _cells(parts, maps, width, params.levels)
    list_pid, list_click, list_count = _lists(parts, maps)
    shown = sum(p.checks["shown"] for p in parts)
    return ClickStats(
        keys,
        texts,
        pairs,
        width,
        cell_pair,
        cell_rank,
        cell_n,
        cell_c,
        list_pid,
        list_click,
        list_count,
        counts,
        assumptions(params.weights, params.positions, params.max_rank, shown, counts),
    )


def _ordered_keys(parts: Sequence[ShardStats]) -> tuple[list[str], list[str]]:
    """Query keys in the order of their first list in the log, with that list's text."""
    first: dict[str, tuple[int, str]] = {}
    for p in parts:
        for key, text, at in zip(p.query_keys, p.query_texts, p.key_first.tolist(), strict=True):
            if key not in first or at < first[key][0]:
                first[key] = (at, text)
    ordered = sorted(first, key=lambda k: first[k][0])
    return ordered, [first[k][1] for k in ordered]


def _ordered_pairs(parts: Sequence[ShardStats]) -> tuple[list[tuple[str, str]], list[np.ndarray]]:
    """Pairs in the order they first appear in the log; per shard, its pair ids -> these."""
    first: dict[tuple[str, str], tuple[int, int]] = {}
    for p in parts:
        for pair, (at, place) in zip(p.pairs, p.pair_first.tolist(), strict=True):
            if pair not in first or (at, place) < first[pair]:
                first[pair] = (at, place)
    ordered = sorted(first, key=first.__getitem__)
    index = {pair: i for i, pair in enumerate(ordered)}
    maps = [np.asarray([index[pair] for pair in p.pairs], dtype=np.int64) for p in parts]
    return ordered, maps


def _cells(
    parts: Sequence[ShardStats], maps: list[np.ndarray], width: int, levels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Impressions and weighted clicks per (pair, rank) cell, ascending; exact sums of
    integer counts, the clicks then summed level by level in one fixed order."""
    n_levels = len(levels)
    codes, counts = [], []
    for p, to_global in zip(parts, maps, strict=True):
        cells = p.cells
        codes.append((to_global[cells[:, 0]] * width + cells[:, 1]) * n_levels + cells[:, 2])
        counts.append(cells[:, 3])
    code, inverse = np.unique(np.concatenate(codes), return_inverse=True)
    n = np.bincount(inverse, np.concatenate(counts), len(code)).astype(np.int64)
    cell, where = np.unique(code // n_levels, return_inverse=True)
    impressions = np.bincount(where, n, len(cell)).astype(np.int64)
    clicks = np.bincount(where, levels[code % n_levels] * n, len(cell))
    return cell // width, cell % width, impressions, clicks


def _lists(
    parts: Sequence[ShardStats], maps: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct result lists of every shard (global pair ids), sorted, with their counts."""
    width = max(p.list_rows.shape[1] // 2 for p in parts)
    rows, counts = [], []
    for p, to_global in zip(parts, maps, strict=True):
        half = p.list_rows.shape[1] // 2
        pid = np.full((len(p.list_rows), width), -1, dtype=np.int64)
        click = np.zeros((len(p.list_rows), width), dtype=np.int64)
        local = p.list_rows[:, :half]
        pid[:, :half] = np.where(local >= 0, to_global[np.maximum(local, 0)], -1)
        click[:, :half] = p.list_rows[:, half:]
        rows.append(np.concatenate([pid, click], axis=1))
        counts.append(p.list_count)
    row, inverse = np.unique(np.concatenate(rows), axis=0, return_inverse=True)
    count = np.bincount(inverse.ravel(), np.concatenate(counts), len(row)).astype(np.int64)
    return row[:, :width], row[:, width:].astype(bool), count


def of_log(log: UbiLog, params: StatsParams) -> ClickStats:
    """The statistics of a whole log, as one shard (the local executor's path)."""
    params = replace(params, n_events=len(log.events))
    everything = (log.queries, log.events, range(len(log.queries)), range(len(log.events)))
    return reduce_stats([shard_stats(params, everything)], params)


def shards_of(log: UbiLog, n: int, offset: int = 0) -> list[tuple[Any, ...]]:
    """``log`` in ``n`` shards by ``query_id`` (a stable hash), each record with its place
    in the log (plus ``offset``); events without a ``query_id`` belong to no search and are
    left out."""
    queries: list[list[UbiQuery]] = [[] for _ in range(n)]
    events: list[list[UbiEvent]] = [[] for _ in range(n)]
    q_at: list[list[int]] = [[] for _ in range(n)]
    e_at: list[list[int]] = [[] for _ in range(n)]
    home: dict[str, int] = {}

    def shard(qid: str) -> int:
        if qid not in home:
            home[qid] = zlib.crc32(qid.encode()) % n
        return home[qid]

    for i, q in enumerate(log.queries):
        k = shard(q.query_id)
        queries[k].append(q)
        q_at[k].append(offset + i)
    for i, e in enumerate(log.events):
        if e.query_id is not None:
            k = shard(e.query_id)
            events[k].append(e)
            e_at[k].append(offset + i)
    return list(zip(queries, events, q_at, e_at, strict=True))


def as_stats(data: ClickTable | ClickStats) -> ClickStats:
    """``data`` as statistics: a click table is read as one shard of itself."""
    if isinstance(data, ClickStats):
        return data
    levels = np.unique(np.concatenate([[0.0], data.signal[data.shown]]))
    shown = int(data.shown.sum())
    checks = {"base": {"zero_seen": True, "first": None, "logged": 0}, "first_off": None}
    checks["shown"] = shown
    part = of_table(data, levels, checks)
    params = StatsParams(positions=1, weights={str(i): float(v) for i, v in enumerate(levels)})
    stats = reduce_stats([part], params)
    return ClickStats(
        **{**stats.__dict__, "counts": dict(data.counts), "assumptions": list(data.assumptions)}
    )
