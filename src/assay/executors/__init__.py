"""Where fan-out work runs: on this machine (``local``, the default) or on a Ray cluster.

One option, :class:`ExecutorOptions`, chooses it for every command that fans
out (system calls, model calls, sharded runs, sharded click logs); the CLI's
``--executor`` and the environment variable ``ASSAY_EXECUTOR`` set it once.
Both executors answer the same small interface (:class:`Executor`): map a
function over items and give the results back *in the items' order*, so the
driver (this process) reduces them exactly as a local run would. The driver
keeps every rule that decides a result: retries and the circuit breaker of
system calls, the model-call cache and budget, the output files.

``local`` loads nothing new. ``ray`` imports Ray only when first used and
connects the way Ray does: to ``address`` (or ``RAY_ADDRESS``) when given,
else to a Ray already started in this process, else it starts a local Ray
(``num_cpus``). It never stops a cluster it did not start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from assay.errors import UsageError

T = TypeVar("T")
R = TypeVar("R")

#: The executors there are, in the order help lists them.
EXECUTORS = ("local", "ray")
#: Environment variable that sets the executor once for every command.
ENV_VAR = "ASSAY_EXECUTOR"


class ExecutorOptions(BaseModel):
    """Where fan-out work runs (the ``--executor`` option and ``ASSAY_EXECUTOR``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    executor: Literal["local", "ray"] = Field(
        "local",
        description="local: this process (the default); ray: tasks on a Ray cluster.",
    )
    address: str | None = Field(
        None,
        description="Ray cluster to join (e.g. ray://head:10001 or auto); default RAY_ADDRESS, "
        "else a Ray already running in this process, else a new local Ray.",
    )
    num_cpus: int | None = Field(
        None, ge=1, description="CPUs of a local Ray started by assay (default: all)."
    )
    max_retries: int = Field(
        3,
        ge=0,
        description="Times Ray runs a task again when its worker process or node dies.",
    )
    io_task_cpus: float = Field(
        0.25,
        gt=0,
        description="CPUs a task that mostly waits on the network (system calls) reserves: "
        "0.25 lets four run per CPU.",
    )
    in_flight: int | None = Field(
        None,
        ge=1,
        description="Tasks submitted ahead of the one being gathered (default: twice as many "
        "as the cluster's CPUs can run at once, at least 4).",
    )


class Executor(Protocol):
    """What every executor does: map in order, shuffle parts between tasks, fan system
    batches and model calls out."""

    name: str

    def map(
        self,
        fn: Callable[[Any, T], R],
        items: Sequence[T],
        *,
        shared: Any = None,
        on_lost: Callable[[T, BaseException], R] | None = None,
    ) -> Iterator[R]:
        """``fn(shared, item)`` for every item, yielded in the items' order."""
        ...

    def shuffle(
        self,
        split: Callable[[Any, T], tuple[Any, ...]],
        items: Sequence[T],
        parts: int,
        combine: Callable[[Any, list[Any]], R],
        *,
        shared: Any = None,
    ) -> tuple[list[Any], list[R]]:
        """Split every item into a head and ``parts`` parts, combine part ``k`` of every item
        (in order) for each ``k``; the heads and the combined values."""
        ...

    def system_batches(
        self, calls: Any, chunks: Sequence[list[str]], texts: dict[str, str]
    ) -> Iterator[tuple[list[str], Any]]:
        """``(chunk, answers)`` per chunk of query ids, in order (``None``: ask here)."""
        ...

    def chat_client(self, client: Any) -> Any:
        """The client through which model calls go (rate limit, remote calls)."""
        ...


_chosen: ExecutorOptions | None = None
_made: dict[ExecutorOptions, Executor] = {}


def options_from(value: ExecutorOptions | str | None) -> ExecutorOptions:
    """``value`` as options: a name (``local``/``ray``), options, or ``None`` for the default
    (``$ASSAY_EXECUTOR``, else local)."""
    if isinstance(value, ExecutorOptions):
        return value
    if value is None:
        value = os.environ.get(ENV_VAR, "").strip() or "local"
    name = value.strip().lower()
    if name not in EXECUTORS:
        raise UsageError(
            f"`executor` must be one of {', '.join(EXECUTORS)}, got {value!r}"
            + (f" (from ${ENV_VAR})" if value == os.environ.get(ENV_VAR) else ""),
            "executor",
        )
    return ExecutorOptions(executor=name)  # type: ignore[arg-type]


def set_executor(value: ExecutorOptions | str | None) -> None:
    """Choose the executor of this process (``None``: back to ``$ASSAY_EXECUTOR`` or local)."""
    global _chosen
    _chosen = None if value is None else options_from(value)
    if value is None:
        options_from(None)  # a bad $ASSAY_EXECUTOR is refused now, not at the first fan-out


def current_options() -> ExecutorOptions:
    """The options in force: those set by :func:`set_executor` or :func:`use`, else the default."""
    return _chosen if _chosen is not None else options_from(None)


def current() -> Executor:
    """The executor in force (made once per set of options)."""
    options = current_options()
    if options not in _made:
        if options.executor == "ray":
            from assay.executors.ray_backend import RayExecutor

            _made[options] = RayExecutor(options)
        else:
            from assay.executors.local import LocalExecutor

            _made[options] = LocalExecutor(options)
    return _made[options]


@contextmanager
def use(value: ExecutorOptions | str | None) -> Iterator[Executor]:
    """Run the body with executor ``value``; the previous choice comes back after it."""
    global _chosen
    before = _chosen
    set_executor(value)
    try:
        yield current()
    finally:
        _chosen = before


__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorOptions",
    "current",
    "current_options",
    "options_from",
    "set_executor",
    "use",
]
