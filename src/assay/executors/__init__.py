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

from collections.abc import Iterator
from contextlib import contextmanager

from assay.executors.local import LocalExecutor
from assay.executors.options import EXECUTORS, Executor, ExecutorOptions, options_from
from assay.executors.ray_backend import RayExecutor

_chosen: ExecutorOptions | None = None
_made: dict[ExecutorOptions, Executor] = {}


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
            _made[options] = RayExecutor(options)
        else:
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
