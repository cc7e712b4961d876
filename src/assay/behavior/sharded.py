"""UBI logs in many files, read and turned into click statistics on the executor in force.

Locally the files are read by :func:`assay.behavior.read.read_ubi` and the
whole log is one shard of statistics. On Ray (:func:`click_statistics`) each
file is read and checked by one task, which cuts its records into shards by
``query_id``; each shard of every file goes straight to one more task, which
joins them in file order and computes the shard's statistics
(:mod:`assay.behavior.stats`). The driver receives only the response ids (to
refuse a response logged twice across files) and the statistics, which it
reduces; the click models' EM iterations run on those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.behavior.models import UbiQuery
from assay.behavior.read import DEFAULT_MAX_BYTES, LAYOUTS, _check_duplicates, read_ubi
from assay.behavior.stats import of_log, reduce_stats, shard_stats, shards_of
from assay.core.errors import collecting
from assay.executors import current


def _no_repeats(queries: Sequence[UbiQuery], first: Any) -> None:
    """The reader's check that no response is logged twice, over every file."""

    with collecting(first) as problems:
        _check_duplicates(list(queries), problems)


#: A record's place in the log: its file's number x FILE_SPAN + its place among that file's.
FILE_SPAN = 1 << 40
#: Returned lists come after every impression list (:func:`~assay.behavior.table.shard_table`).
AFTER_EVENTS = 1 << 62


def click_statistics(
    paths: str | Path | Sequence[str | Path],
    params: Any,
    layout: str | None = None,
    max_bytes: int | None = None,
) -> tuple[Any, list[str]]:
    """The click models' statistics of the UBI logs at ``paths``
    (:class:`~assay.behavior.stats.ClickStats`) and the files read.

    Locally: :func:`~assay.behavior.read.read_ubi` over every file, the whole log one
    shard. On Ray the records never reach this process: one task per file reads it and
    cuts its records into shards by ``query_id``; one task per shard gathers that shard
    of every file (in file order) and computes its statistics; here only the responses'
    ids (for the check that none is logged twice across files) and the statistics
    arrive, and are reduced. Both give the same statistics to the last bit."""

    items = [paths] if isinstance(paths, str | Path) else list(paths)
    files = [str(p) for p in items]
    executor = current()
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if executor.name == "local" or not items or (layout and layout not in LAYOUTS):
        return of_log(read_ubi(items, layout=layout, max_bytes=limit), params), files
    window = getattr(executor, "window", None)
    n = max(2, len(items), window() if callable(window) else 0)
    params = replace(params, n_events=AFTER_EVENTS)
    heads, parts = executor.shuffle(
        _split_file, list(enumerate(files)), n, _shard_stats, shared=(layout, limit, n, params)
    )
    _no_repeats([q for head in heads for q in head], items[0])
    return reduce_stats(parts, params), files


def _split_file(shared: tuple[Any, ...], item: tuple[int, str]) -> tuple[Any, ...]:
    """On a worker: one file read and cut into shards; its responses' ids, then the shards."""

    layout, max_bytes, n, _ = shared
    index, path = item
    log = read_ubi(path, layout=layout, max_bytes=max_bytes)
    responses = [
        UbiQuery(q.query_id, "", q.path, q.line, query_response_id=q.query_response_id)
        for q in log.queries
        if q.query_response_id is not None
    ]
    return (responses, *shards_of(log, n, offset=index * FILE_SPAN))


def _shard_stats(shared: tuple[Any, ...], parts: list[tuple[Any, ...]]) -> Any:
    """On a worker: one shard of every file, joined in file order, as statistics."""

    joined = tuple([x for part in parts for x in part[i]] for i in range(4))
    return shard_stats(shared[3], joined)
