"""System calls as remote tasks: a chunk of queries asked on a worker, recorded on the driver.

The worker runs the runner's own call path (:meth:`assay.systems.runner._Calls.ask`:
retries, backoff, ``Retry-After``, checks of each result list) on a copy of
the driver's calls, and sends back one ``(hits or error, attempts)`` per
query, the latencies it measured and the outcome of every attempt. The
driver records them in chunk order through the same code as a local run
(failed attempts in a row counted across tasks, failures, circuit breaker),
and writes the run cache once.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

from assay.core.retry import Transient


def portable(calls: Any) -> Any:
    """A copy of the runner's calls to ship to workers: no results, and a user's module
    from a file travels by value (workers may not have it on their path)."""
    clone = copy.copy(calls)
    clone.results, clone.failures, clone.latencies = {}, {}, []
    by_value(getattr(calls.system, "function", None))
    return clone


def by_value(function: Any) -> None:
    """Ship the module of a user's ``function`` with it, unless it is an installed package
    (or assay): a ``file.py:function`` or a module found from the current folder may not be
    on a worker's path."""
    name = str(getattr(function, "__module__", "") or "")
    module = sys.modules.get(name)
    path = str(getattr(module, "__file__", "") or "")
    if module is None or not path or name == "__main__" or name.split(".")[0] == "assay":
        return
    if "site-packages" in path or "dist-packages" in path:
        return
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(module)


def ask_chunk(
    shared: tuple[Any, dict[str, str]], chunk: list[str]
) -> tuple[list[Any], list[float], list[str | None]]:
    """On a worker: ask every query of ``chunk``; the answers, the latencies measured and
    every attempt's outcome in order (the driver counts failed attempts in a row)."""
    calls, texts = shared
    calls = copy.copy(calls)
    calls.latencies, calls.outcomes = [], []
    return calls.ask(chunk, texts), calls.latencies, calls.outcomes


def lost_chunk(
    chunk: list[str], exc: BaseException
) -> tuple[list[Any], list[float], list[str | None]]:
    """A chunk whose every task attempt lost its worker: each query failed (as when a server
    never answers), so the run reports it and the circuit breaker counts it."""
    error = Transient(f"the Ray worker asking it was lost ({type(exc).__name__})")
    return [(error, 1) for _ in chunk], [], [str(error) for _ in chunk]
