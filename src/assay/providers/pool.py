"""Model calls on a few threads, with tasks taken lazily.

:func:`for_each` never materialises the task list: a matrix of a billion
repeats or a grading run of many samples holds at most ``2 * workers``
submitted tasks at a time, and stops taking new ones once ``stop`` is set
(a spent budget).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def for_each(
    tasks: Iterable[T],
    work: Callable[[T], None],
    workers: int,
    stop: threading.Event | None = None,
) -> None:
    """Run ``work(task)`` for each task on ``workers`` threads; the first error propagates."""
    workers = max(1, workers)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay-model") as pool:
        pending: set[Future[None]] = set()
        for task in tasks:
            if stop is not None and stop.is_set():
                break
            pending.add(pool.submit(work, task))
            if len(pending) >= 2 * workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
        for future in pending:
            future.result()
