"""What an executor is and how it is chosen: its options, its protocol, the names there are.

Below :mod:`assay.executors` (which keeps the one executor in force) and both executors
(:mod:`~assay.executors.local`, :mod:`~assay.executors.ray_backend`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import UsageError

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
