"""Large numpy work on two threads: the one rule for splitting it.

numpy's arithmetic, gathers and sorts release the GIL (so do Arrow's kernels),
so a step over millions of rows runs about twice as fast on two threads.
:func:`halves` decides when a step is large enough (:data:`THREADED_AT` rows)
and how it is cut; :func:`beside` runs one independent step on a second
thread while the caller does another, from :data:`BESIDE_AT` rows; :class:`Ahead`
makes the next item of an iterator on a second thread while the caller uses this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

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


#: Seconds a thread of :class:`Ahead` waits at a time before it checks whether it was stopped.
_POLL = 0.05


class Ahead(Iterator[T]):
    """The items of ``items``, each made on a second thread while the caller uses the one
    before (the next block of a file read while this one is scored).

    The thread starts at once: items are made before the first is asked for. At most
    one item waits made besides the one being made, and neither this object nor its
    thread keeps an item once handed over. An error of ``items`` is raised in the
    caller, in its place among the items. :meth:`close` (also when this object is let
    go of) stops the thread once the item it is making is done, and closes ``items``
    on that thread.
    """

    def __init__(self, items: Iterator[T], name: str = "assay-ahead") -> None:
        import queue
        import threading

        self._slot: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._done = False
        # the thread holds the queue and the flag, not this object: letting go of it stops them
        self._thread = threading.Thread(
            target=_make, args=(items, self._slot, self._stop), name=name, daemon=True
        )
        self._thread.start()

    def __next__(self) -> T:
        import queue

        while not self._done:
            try:
                more, value = self._slot.get(timeout=_POLL)
            except queue.Empty:
                if not self._thread.is_alive() and self._slot.empty():
                    break  # pragma: no cover - the thread always says why it ends
                continue
            if more:
                return value  # type: ignore[no-any-return]
            self.close()
            if value is not None:
                raise value
        raise StopIteration

    def close(self) -> None:
        """Stop the thread (after the item it is making) and let go of what it made."""
        import contextlib
        import queue

        self._done = True
        self._stop.set()
        while self._thread.is_alive():
            with contextlib.suppress(queue.Empty):
                self._slot.get_nowait()
            self._thread.join(_POLL)
        with contextlib.suppress(queue.Empty):
            self._slot.get_nowait()

    def __del__(self) -> None:
        if not self._done:
            self._done = True
            self._stop.set()  # not joined here: the thread sees it within _POLL


def _offer(slot: Any, stop: Any, entry: tuple[bool, Any]) -> bool:
    """Put ``entry`` in ``slot`` once there is room; ``False`` if ``stop`` is set first."""
    import queue

    while not stop.is_set():
        try:
            slot.put(entry, timeout=_POLL)
            return True
        except queue.Full:
            continue
    return False


def _make(items: Iterator[Any], slot: Any, stop: Any) -> None:
    """The thread of an :class:`Ahead`: each item of ``items``, then how they ended."""
    try:
        for item in items:
            entry = (True, item)
            del item  # handed over: only the queue (then the caller) holds it
            if not _offer(slot, stop, entry):
                return
            del entry
        _offer(slot, stop, (False, None))
    except BaseException as exc:  # raised in the caller, in its place
        _offer(slot, stop, (False, exc))
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
