"""The one rule for calling user code: a deadline per call and a cap on what comes back.

Python systems (:mod:`assay.systems.python`) and the Python baselines of a
generation matrix (:mod:`assay.matrix.runner`) call functions assay did not
write. :func:`call_bounded` runs such a call on a worker thread and waits at
most ``timeout`` seconds for it:

- a call that returns in time gives its value;
- an ordinary exception is raised again in the caller (the runner treats it as
  a transient failure, as before);
- ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` and any other
  ``BaseException`` raised inside the function become a :class:`UserCodeFailed`
  (a failed call, never a silent exit of assay);
- a call that sleeps, loops or blocks past the deadline becomes a
  :class:`UserCodeTimeout` (a failed call that is not retried).

A Python thread cannot be killed. A call past its deadline is *abandoned*: its
worker is a daemon thread, so it never keeps the process alive, and it ends
with the process (or earlier, if the function returns after all; its value is
dropped). At most :data:`MAX_ABANDONED` abandoned calls may still be running;
past that every further call fails at once, so a function that hangs on every
query cannot pile up threads or burn every core.

Collections returned are consumed on the worker thread too, at most
``limit + 1`` items (:func:`first_items`): a generator that yields forever or
a list of ten million ids costs no more than the asked depth.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from assay.core.errors import SystemCallError as SystemError_
from assay.core.limits import MAX_TIMEOUT, seconds

T = TypeVar("T")

#: Seconds a user function may take per call unless configured (``timeout``).
DEFAULT_TIMEOUT = 60.0
#: Calls in flight at once for framework and SQL systems unless configured (``concurrency``).
DEFAULT_CONCURRENCY = 4
#: Abandoned calls (past their deadline, still running) after which calls fail at once.
MAX_ABANDONED = 8

_abandoned = 0
_abandoned_lock = threading.Lock()


class UserCodeFailed(SystemError_):
    """A user function ended the call abnormally (``SystemExit``, ``KeyboardInterrupt``...)."""


class UserCodeTimeout(UserCodeFailed):
    """A user function did not return within its deadline."""


def check_timeout(value: Any, where: str) -> float:
    """``value`` as a timeout in seconds: a finite number > 0 and <= :data:`MAX_TIMEOUT`.

    Raises :class:`~assay.core.errors.UsageError` naming ``where`` (a table key or an option).
    """
    return seconds(value, where, maximum=MAX_TIMEOUT)


def abandoned_calls() -> int:
    """How many calls past their deadline are still running in this process."""
    return _abandoned


def call_bounded(call: Callable[[], T], *, timeout: float, what: str) -> T:
    """Run ``call()`` on a daemon worker thread; wait at most ``timeout`` seconds.

    ``what`` names the function in messages (``python system file.py:search``).
    Returns the value, raises the function's own ``Exception``, or raises
    :class:`UserCodeFailed` / :class:`UserCodeTimeout` (see the module docstring).
    """
    global _abandoned
    if _abandoned >= MAX_ABANDONED:
        raise UserCodeFailed(
            f"{what}: not called, {_abandoned} earlier calls are still running past their "
            "deadline (fix the function, or raise its timeout)"
        )
    box: dict[str, Any] = {}
    done = threading.Event()
    state = {"abandoned": False}

    def work() -> None:
        global _abandoned
        try:
            box["value"] = call()
        except BaseException as exc:  # user code: every ending is a result
            box["error"] = exc
        finally:
            with _abandoned_lock:
                done.set()
                if state["abandoned"]:
                    _abandoned -= 1

    worker = threading.Thread(target=work, name="assay-user-call", daemon=True)
    worker.start()
    if not done.wait(timeout):
        with _abandoned_lock:
            if not done.is_set():
                state["abandoned"] = True
                _abandoned += 1
                raise UserCodeTimeout(
                    f"{what} did not return within {timeout:g} s (timeout); the call was abandoned"
                )
    error = box.get("error")
    if error is None:
        return box["value"]
    if isinstance(error, Exception):
        raise error
    raise UserCodeFailed(
        f"{what} raised {type(error).__name__}"
        f"{'' if not str(error) else f'({error})'}; counted as a failed call"
    )


def first_items(result: Iterable[Any], limit: int) -> tuple[list[Any], bool]:
    """The first ``limit`` items of ``result`` and whether it held more.

    Lists and tuples are sliced; any other iterable (a generator that never
    ends) is consumed for at most ``limit + 1`` items.
    """
    if isinstance(result, list | tuple):
        return list(result[:limit]), len(result) > limit
    items = list(itertools.islice(iter(result), limit + 1))
    return items[:limit], len(items) > limit


#: Characters a matrix baseline's answer may hold (longer answers are failed calls).
MAX_BASELINE_CHARS = 1_000_000


def call_baseline(
    function: Callable[..., Any],
    provider: Any,
    system_prompt: str,
    question: str,
    documents: list[dict[str, str]],
) -> str:
    """Call a matrix baseline ``function(system_prompt, question, documents)``, bounded.

    The deadline is the provider's ``timeout`` (default :data:`DEFAULT_TIMEOUT`);
    a non-string answer is JSON-encoded on the worker thread; an answer over
    :data:`MAX_BASELINE_CHARS` characters is a :class:`UserCodeFailed`.
    """
    import json

    timeout = getattr(provider, "timeout", None) or DEFAULT_TIMEOUT
    what = f"baseline {provider.name!r} ({provider.function})"

    def call() -> str:
        out = function(system_prompt=system_prompt, question=question, documents=documents)
        text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)
        if len(text) > MAX_BASELINE_CHARS:
            raise UserCodeFailed(
                f"{what} answered {len(text):,} characters; at most {MAX_BASELINE_CHARS:,} "
                "are accepted"
            )
        return text

    return call_bounded(call, timeout=timeout, what=what)
