"""The Ray executor: tasks on a Ray cluster, results gathered in order on the driver.

Ray is imported here only, on first use. Tasks are spread over the nodes
(``SPREAD``), at most ``in_flight`` ahead of the one being gathered, and run
again by Ray (``max_retries``) when their worker process or node dies. An
error raised by the work itself comes back as itself (an :class:`AssayError`
stays one); a task whose every retry lost its worker goes to ``on_lost`` when
the caller gave one (system calls record the chunk as failed queries, as a
dead server would be), else it ends the command. Ctrl-C, or a caller that
stops gathering, cancels every task not yet gathered, forcibly: a task waiting
on a slow server would not see a polite cancel (its calls run in threads that
catch everything), so its worker process is ended and Ray lists the task as
``TASK_CANCELLED``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from assay.core.errors import AssayError, UsageError
from assay.executors.models import RemoteChatClient
from assay.executors.options import ExecutorOptions
from assay.executors.ray_tools import cause, spread_placements
from assay.executors.systems import ask_chunk, lost_chunk, portable

T = TypeVar("T")
R = TypeVar("R")

_connect_lock = threading.Lock()
_registered: set[str] = set()  # Ray jobs (connections) the serializers are registered for


class WorkLost(AssayError):
    """Ray lost a task's worker more often than it may retry it (exit 1)."""

    exit_code = 1


def _apply(fn: Callable[[Any, Any], Any], shared: Any, item: Any) -> Any:
    """The task body: ``fn(shared, item)`` on a worker."""
    return fn(shared, item)


def _apply_parts(fn: Callable[[Any, Any], Any], shared: Any, *parts: Any) -> Any:
    """A combining task's body: ``fn(shared, parts)`` (Ray resolved every part)."""
    return fn(shared, list(parts))


def _no_state(_: Any) -> None:
    return None


def _new_lock(_: Any) -> Any:
    return threading.Lock()


def _new_rlock(_: Any) -> Any:
    return threading.RLock()


def _nothing(_: Any) -> None:
    return None


def connect(options: ExecutorOptions) -> Any:
    """The ``ray`` module, connected: to ``options.address`` (or ``RAY_ADDRESS``), to a Ray
    this process already joined, or to a new local Ray of ``options.num_cpus`` CPUs."""
    try:
        import ray
    except ImportError:
        raise UsageError("`executor` ray needs Ray: pip install 'assay[ray]'", "executor") from None
    with _connect_lock:
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.WARNING,
            }
            if options.address:
                ray.init(address=options.address, **kwargs)
            elif os.environ.get("RAY_ADDRESS"):
                ray.init(**kwargs)  # Ray reads RAY_ADDRESS itself
            else:
                ray.init(num_cpus=options.num_cpus, **kwargs)
        job = ray.get_runtime_context().get_job_id()
        if job not in _registered:  # a new connection has a new serialization context
            _register_serializers(ray)
            _registered.add(job)
    return ray


def _register_serializers(ray: Any) -> None:
    """Locks and open HTTP clients travel as fresh ones: a system made on the driver (an
    HTTP system holds a lock and, once used, a connection pool) rebuilds them on a worker."""
    ray.util.register_serializer(
        type(threading.Lock()), serializer=_no_state, deserializer=_new_lock
    )
    ray.util.register_serializer(
        type(threading.RLock()), serializer=_no_state, deserializer=_new_rlock
    )
    import httpx

    for cls in (httpx.Client, httpx.AsyncClient):
        ray.util.register_serializer(cls, serializer=_no_state, deserializer=_nothing)


class RayExecutor:
    """Fans work out as Ray tasks; see the module docstring."""

    name = "ray"

    def __init__(self, options: ExecutorOptions) -> None:
        self.options = options
        self._clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def ray(self) -> Any:
        """The connected ``ray`` module."""
        return connect(self.options)

    def window(self, num_cpus: float = 1.0) -> int:
        """Tasks in flight at once: ``in_flight``, else twice as many tasks of ``num_cpus``
        CPUs as the cluster can run at once (at least 4)."""
        if self.options.in_flight:
            return self.options.in_flight
        cpus = float(self.ray().cluster_resources().get("CPU", 1))
        return max(4, int(2 * cpus / num_cpus))

    def map(
        self,
        fn: Callable[[Any, T], R],
        items: Sequence[T],
        *,
        shared: Any = None,
        on_lost: Callable[[T, BaseException], R] | None = None,
        num_cpus: float = 1.0,
    ) -> Iterator[R]:
        """``fn(shared, item)`` as one task per item, yielded in the items' order."""
        ray = self.ray()
        task = ray.remote(_apply).options(
            name=f"assay:{getattr(fn, '__name__', 'task')}",  # as the dashboard lists it
            max_retries=self.options.max_retries,
            retry_exceptions=False,
            scheduling_strategy="SPREAD",
            num_cpus=num_cpus,
        )
        shared_ref = ray.put(shared)
        window = self.window(num_cpus)
        refs: deque[Any] = deque()
        submitted = 0
        try:
            for item in items:
                while submitted < len(items) and len(refs) < window:
                    refs.append(task.remote(fn, shared_ref, items[submitted]))
                    submitted += 1
                result = self._gather(ray, refs[0], item, on_lost)
                refs.popleft()
                yield result
        finally:
            for ref in refs:  # a stop, an error or Ctrl-C: nothing keeps running (see above)
                with contextlib.suppress(Exception):  # a task that already ended
                    ray.cancel(ref, force=True)

    def shuffle(
        self,
        split: Callable[[Any, T], tuple[Any, ...]],
        items: Sequence[T],
        parts: int,
        combine: Callable[[Any, list[Any]], R],
        *,
        shared: Any = None,
    ) -> tuple[list[Any], list[R]]:
        """``split(shared, item)`` as one task per item, returning ``(head, part 0, ...,
        part parts-1)``; then ``combine(shared, [part k of every item, in order])`` as one
        task per ``k``, dealt round-robin over the nodes. The parts go from task to task
        (never through here); the heads (gathered first, in order: the first item's error
        is the one raised) and the combined values come back."""
        ray = self.ray()
        common = {"max_retries": self.options.max_retries, "retry_exceptions": False}
        splitter = ray.remote(_apply).options(
            name=f"assay:{getattr(split, '__name__', 'split')}",
            num_returns=parts + 1,
            scheduling_strategy="SPREAD",
            **common,
        )
        combiner = ray.remote(_apply_parts)
        name = f"assay:{getattr(combine, '__name__', 'combine')}"
        shared_ref = ray.put(shared)
        refs: list[Any] = []
        try:
            split_refs = [splitter.remote(split, shared_ref, item) for item in items]
            refs = [out[0] for out in split_refs]  # one ref names its task
            # dealt round-robin over the nodes: SPREAD alone put every one on one node
            combined = [
                combiner.options(name=name, scheduling_strategy=placement, **common).remote(
                    combine, shared_ref, *[out[k + 1] for out in split_refs]
                )
                for k, placement in enumerate(spread_placements(ray, parts))
            ]
            refs += combined
            pairs = zip(split_refs, items, strict=True)
            heads = [self._gather(ray, out[0], item, None) for out, item in pairs]
            values = [self._gather(ray, ref, k, None) for k, ref in enumerate(combined)]
            refs = []
            return heads, values
        finally:
            for ref in refs:  # an error or Ctrl-C: nothing keeps running
                with contextlib.suppress(Exception):  # a task that already ended
                    ray.cancel(ref, force=True)

    def _gather(
        self, ray: Any, ref: Any, item: Any, on_lost: Callable[[Any, BaseException], Any] | None
    ) -> Any:
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            raise cause(exc) from None
        except ray.exceptions.RayError as exc:
            if on_lost is not None:
                return on_lost(item, exc)
            raise WorkLost(
                f"Ray lost a task's worker {self.options.max_retries + 1} times "
                f"({type(exc).__name__}); check the cluster's nodes"
            ) from None

    def system_batches(
        self, calls: Any, chunks: Sequence[list[str]], texts: dict[str, str]
    ) -> Iterator[tuple[list[str], Any]]:
        """Each chunk asked by a task; the driver records the answers in order."""

        self.ray()
        results = self.map(
            ask_chunk,
            chunks,
            shared=(portable(calls), texts),
            on_lost=lost_chunk,
            num_cpus=self.options.io_task_cpus,
        )
        for chunk, (answers, latencies, outcomes) in zip(chunks, results, strict=True):
            calls.latencies.extend(latencies)
            calls.replay(outcomes)  # failed attempts in a row, counted as one process would
            yield chunk, answers

    def chat_client(self, client: Any) -> Any:
        """Model calls made by actors on the cluster, under one cluster-wide rate limit."""

        if client not in self._clients:  # one set of actors (and one bucket) per client
            self._clients[client] = RemoteChatClient(client, self)
        return self._clients[client]
