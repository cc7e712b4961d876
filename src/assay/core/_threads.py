"""Large numpy work on two threads: the one rule for splitting it.

numpy's arithmetic, gathers and sorts release the GIL (so do Arrow's kernels),
so a step over millions of rows runs about twice as fast on two threads.
:func:`halves` decides when a step is large enough (:data:`THREADED_AT` rows)
and how it is cut; :func:`beside` runs one independent step on a second
thread while the caller does another, from :data:`BESIDE_AT` rows.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

#: Steps over at least this many values run on two threads.
THREADED_AT = 250_000
#: Independent steps over at least this many rows run beside each other.
BESIDE_AT = 100_000


def halves(work: Callable[[slice], T], n: int, size: int | None = None) -> list[T]:
    """``[work(slice)]`` over ``range(n)``: one slice, or two halves on two threads
    when ``size`` (the number of values the step touches; ``n`` if ``None``)
    reaches :data:`THREADED_AT`. Results come back in slice order."""
    if (n if size is None else size) < THREADED_AT or n < 2:
        return [work(slice(0, n))]
    from concurrent.futures import ThreadPoolExecutor

    half = n // 2
    with ThreadPoolExecutor(2, thread_name_prefix="assay-half") as pool:
        return list(pool.map(work, (slice(0, half), slice(half, n))))


#: Values per piece of a step run piece by piece (see :func:`pieces`): the
#: temporaries of a piece are a few megabytes, reused from one piece to the next.
PIECE = 1 << 19


def pieces(
    work: Callable[[slice], T], n: int, piece: int = PIECE, size: int | None = None
) -> list[T]:
    """``[work(slice)]`` over consecutive slices of at most ``piece`` of ``range(n)``, in order.

    The two halves of :func:`halves` each go piece by piece: a step over
    millions of rows then never allocates full-length temporaries, whose
    fresh pages the kernel must zero (on a virtual machine, at a cost that
    can exceed the step's own work).
    """
    piece = max(1, piece)

    def run(part: slice) -> list[T]:
        return [
            work(slice(lo, min(lo + piece, part.stop)))
            for lo in range(part.start, part.stop, piece)
        ]

    return [out for half in halves(run, n, size) for out in half]


def beside(work: Callable[[], T], rows: int) -> Future[T]:
    """``work()`` on a second thread when ``rows`` reaches :data:`BESIDE_AT`, else at once;
    the caller reads ``.result()`` after doing its own step (errors surface there)."""
    done: Future[T] = Future()
    if rows < BESIDE_AT:
        try:
            done.set_result(work())
        except BaseException as exc:  # surfaced by .result(), as on a thread
            done.set_exception(exc)
        return done
    import threading

    def run() -> None:
        try:
            done.set_result(work())
        except BaseException as exc:
            done.set_exception(exc)

    threading.Thread(target=run, name="assay-beside", daemon=True).start()
    return done
