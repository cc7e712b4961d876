"""UBI logs in many files, read in parallel on the executor in force.

Each file is read and checked by :func:`assay.behavior.read.read_ubi` on a
worker (one task per file); the driver joins the records in the files' order
(exactly what one ``read_ubi`` over all the files returns) and checks for a
response logged twice across files. On the local executor, or for one file, it
is ``read_ubi`` itself. The click models' statistics are then computed per
shard of ``query_id`` values, one task each, and reduced on the driver
(:func:`click_stats`, :mod:`assay.behavior.stats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.behavior.models import UbiLog


def _read_one(shared: tuple[str | None, int], path: str) -> UbiLog:
    from assay.behavior.read import read_ubi

    layout, max_bytes = shared
    return read_ubi(path, layout=layout, max_bytes=max_bytes)


def read_logs(
    paths: str | Path | Sequence[str | Path],
    layout: str | None = None,
    max_bytes: int | None = None,
) -> UbiLog:
    """The UBI records of ``paths`` (see :func:`~assay.behavior.read.read_ubi`), each file read
    by one task of the executor in force. On Ray, ``max_bytes`` bounds each file's
    uncompressed bytes (each task's memory), not all files together."""
    from assay.behavior.read import DEFAULT_MAX_BYTES, LAYOUTS, read_ubi
    from assay.executors import current

    items = [paths] if isinstance(paths, str | Path) else list(paths)
    executor = current()
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if executor.name == "local" or len(items) < 2 or (layout and layout not in LAYOUTS):
        return read_ubi(items, layout=layout, max_bytes=limit)
    logs = list(executor.map(_read_one, [str(p) for p in items], shared=(layout, limit)))
    merged = UbiLog(
        tuple(q for one in logs for q in one.queries),
        tuple(e for one in logs for e in one.events),
        tuple(str(p) for p in items),
        {name: found for one in logs for name, found in one.layouts.items()},
    )
    _no_repeats(merged, items[0])
    return merged


def _no_repeats(log: UbiLog, first: Any) -> None:
    """The reader's check that no response is logged twice, over every file."""
    from assay.behavior.read import _check_duplicates
    from assay.errors import collecting

    with collecting(first) as problems:
        _check_duplicates(list(log.queries), problems)


def click_stats(log: UbiLog, params: Any) -> Any:
    """The click models' statistics of ``log``
    (:class:`~assay.behavior.stats.ClickStats`): locally the whole log as one shard; on
    Ray one task per shard of ``query_id`` values (as many shards as files, or as tasks
    the cluster runs at once, at least two), reduced here. Both give the same
    statistics to the last bit."""
    from assay.behavior.stats import of_log, reduce_stats, shard_stats, shards_of
    from assay.executors import current

    executor = current()
    if executor.name == "local":
        return of_log(log, params)
    window = getattr(executor, "window", None)
    n = max(2, len(log.files), window() if callable(window) else 0)
    parts = shards_of(log, n)
    return reduce_stats(list(executor.map(shard_stats, parts, shared=params)), params)
