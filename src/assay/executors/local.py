"""The local executor: everything in this process, as assay always ran."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from assay.executors.options import ExecutorOptions
from assay.executors.ratelimit import limited

T = TypeVar("T")
R = TypeVar("R")


class LocalExecutor:
    """Runs the work here, one item after another (system and model calls keep their own
    thread pools)."""

    name = "local"

    def __init__(self, options: ExecutorOptions | None = None) -> None:
        self.options = options or ExecutorOptions()

    def map(
        self,
        fn: Callable[[Any, T], R],
        items: Sequence[T],
        *,
        shared: Any = None,
        on_lost: Callable[[T, BaseException], R] | None = None,
    ) -> Iterator[R]:
        """``fn(shared, item)`` for each item, in order (``on_lost`` is for remote executors)."""
        for item in items:
            yield fn(shared, item)

    def shuffle(
        self,
        split: Callable[[Any, T], tuple[Any, ...]],
        items: Sequence[T],
        parts: int,
        combine: Callable[[Any, list[Any]], R],
        *,
        shared: Any = None,
    ) -> tuple[list[Any], list[R]]:
        """``split`` each item into ``(head, part 0, ...)``, then ``combine`` the parts of
        each number across items; the heads and the combined values (see the Ray one)."""
        outs = [split(shared, item) for item in items]
        heads = [out[0] for out in outs]
        return heads, [combine(shared, [out[k + 1] for out in outs]) for k in range(parts)]

    def system_batches(
        self, calls: Any, chunks: Sequence[list[str]], texts: dict[str, str]
    ) -> Iterator[tuple[list[str], Any]]:
        """Each chunk with ``None``: the runner asks the system itself, here."""
        for chunk in chunks:
            yield chunk, None

    def chat_client(self, client: Any) -> Any:
        """``client`` itself, behind a token bucket when its model has a ``rate_limit``."""

        return limited(client)
