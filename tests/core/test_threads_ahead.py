"""``Ahead``: the next item made on a second thread while the caller uses this one."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.core._threads import Ahead


class Item:
    """An object whose lifetime a weak reference can watch."""

    def __init__(self, n: int) -> None:
        self.n = n


def _alive(name: str) -> bool:
    return any(t.name == name and t.is_alive() for t in threading.enumerate())


@given(st.lists(st.integers(), max_size=30))
def test_items_come_in_order_and_all(values: list[int]) -> None:
    assert list(Ahead(iter(values), "assay-test-order")) == values


def test_an_error_is_raised_in_its_place_and_the_thread_ends() -> None:
    def items():
        yield 1
        yield 2
        raise ValueError("line 3 is bad")

    got = []
    ahead = Ahead(items(), "assay-test-error")
    with pytest.raises(ValueError, match="line 3 is bad"):
        for x in ahead:
            got.append(x)
    assert got == [1, 2]
    assert not _alive("assay-test-error")
    with pytest.raises(StopIteration):  # ended: nothing more, no second error
        next(ahead)


def test_the_first_items_are_made_before_they_are_asked_for() -> None:
    made: list[int] = []

    def items():
        for i in range(10):
            made.append(i)
            yield i

    ahead = Ahead(items(), "assay-test-early")
    deadline = time.monotonic() + 10
    while len(made) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # it would go on if it did not wait for the caller
    # one item waits in the queue, the next is made and waits for room: no more
    assert made == [0, 1]
    assert list(ahead) == list(range(10))


def test_closing_stops_the_thread_and_closes_the_items() -> None:
    closed = threading.Event()

    def items():
        try:
            yield from range(1000)
        finally:
            closed.set()

    ahead = Ahead(items(), "assay-test-close")
    assert next(ahead) == 0
    ahead.close()
    assert not _alive("assay-test-close")
    assert closed.is_set()
    with pytest.raises(StopIteration):
        next(ahead)


def test_letting_go_of_it_stops_the_thread() -> None:
    ahead = Ahead(iter(range(1000)), "assay-test-dropped")
    assert next(ahead) == 0
    del ahead
    gc.collect()
    deadline = time.monotonic() + 10
    while _alive("assay-test-dropped") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive("assay-test-dropped")


def test_an_item_handed_over_is_kept_by_nobody_else() -> None:
    watch: list[weakref.ref[Item]] = []

    def items():
        for i in range(3):
            item = Item(i)
            watch.append(weakref.ref(item))
            yield item
            del item

    ahead = Ahead(items(), "assay-test-keep")
    first = next(ahead)
    assert first.n == 0
    del first
    gc.collect()
    assert watch[0]() is None  # neither the queue, the thread nor the iterator holds it
    assert [x.n for x in ahead] == [1, 2]
