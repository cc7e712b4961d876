"""The one retry rule for every call assay makes outside itself.

Systems under test (HTTP, OpenSearch) and model providers use it alike: a call
that fails for a transient reason raises :class:`Transient`; the caller wraps
the call in :func:`call_with_retries`, which waits with exponential backoff and
jitter (or what the server asked for in ``Retry-After``, capped) and gives up
after ``retries`` further attempts or when the ``deadline`` would be passed.
Any other exception is never retried and propagates at once.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from assay.core.bounds import at_least

T = TypeVar("T")
K = TypeVar("K")


class Transient(Exception):
    """A failure worth another attempt (timeout, connection refused, 5xx, 408, 429).

    ``retry_after`` is the wait in seconds the server asked for, if any.
    ``attempts`` is set by :func:`call_with_retries` on the error it finally raises.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.attempts = 1


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before trying a failed call again.

    ``retries`` further attempts after the first; the n-th wait is
    ``backoff * 2**(n-1)`` seconds, capped at ``max_backoff``, of which a share
    ``jitter`` (0 to 1) is drawn at random so that clients do not retry in step.
    A server's ``Retry-After`` replaces the computed wait, capped at
    ``max_retry_after``.
    """

    retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 30.0
    jitter: float = 0.5
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:

        at_least("retries", self.retries, 0)
        for name in ("backoff", "max_backoff", "max_retry_after"):
            value = getattr(self, name)
            if not _finite_non_negative(value):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not _finite_non_negative(self.jitter) or self.jitter > 1:
            raise ValueError(f"jitter must be between 0 and 1, got {self.jitter!r}")

    def wait(
        self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before attempt number ``attempt + 1`` (``attempt`` >= 1)."""
        if retry_after is not None and _finite_non_negative(retry_after):
            return min(retry_after, self.max_retry_after)
        base = min(self.backoff * 2 ** (attempt - 1), self.max_backoff)
        draw = (rng or random).random()
        return base * (1 - self.jitter) + base * self.jitter * draw


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    deadline: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: random.Random | None = None,
) -> tuple[T, int]:
    """Run ``call`` until it succeeds; return ``(value, attempts)``.

    ``call`` raises :class:`Transient` for failures worth retrying. After
    ``policy.retries`` retries, or when the next wait would end past
    ``deadline`` (a :func:`time.monotonic` value), the last :class:`Transient`
    is raised with its ``attempts`` set. Other exceptions propagate at once.
    """
    attempt = 1
    while True:
        try:
            return call(), attempt
        except Transient as exc:
            exc.attempts = attempt
            if attempt > policy.retries:
                raise
            pause = policy.wait(attempt, exc.retry_after, rng)
            if deadline is not None and clock() + pause >= deadline:
                raise
            sleep(pause)
            attempt += 1


def call_many_with_retries(
    call_many: Callable[[list[K]], Sequence[T | BaseException]],
    items: Sequence[K],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> list[tuple[T | BaseException, int]]:
    """The batched form of :func:`call_with_retries`: one ``(value or error, attempts)`` per item.

    ``call_many`` answers a list of items with one value or exception each, in
    order. Items answered with a :class:`Transient` are asked again, together,
    after the wait :meth:`RetryPolicy.wait` gives for the round (the longest
    ``Retry-After`` among them counts), until ``policy.retries`` retries are
    spent. Other exceptions are final at once.
    """
    out: list[tuple[T | BaseException, int] | None] = [None] * len(items)
    pending = list(range(len(items)))
    attempt = 1
    while pending:
        answers = list(call_many([items[i] for i in pending]))
        if len(answers) != len(pending):
            raise ValueError(f"call_many answered {len(answers)} of {len(pending)} items")
        again: list[int] = []
        asked: list[float] = []
        for i, answer in zip(pending, answers, strict=True):
            if isinstance(answer, Transient) and attempt <= policy.retries:
                again.append(i)
                if answer.retry_after is not None:
                    asked.append(answer.retry_after)
                continue
            if isinstance(answer, Transient):
                answer.attempts = attempt
            out[i] = (answer, attempt)
        if again:
            sleep(policy.wait(attempt, max(asked) if asked else None, rng))
        pending = again
        attempt += 1
    return [entry for entry in out if entry is not None]


class CircuitOpen(Exception):
    """Raised by :meth:`CircuitBreaker.check` once too many calls failed in a row."""

    def __init__(self, failures: int, last_error: str) -> None:
        super().__init__(f"{failures} consecutive failures; the last: {last_error}")
        self.failures = failures
        self.last_error = last_error


class CircuitBreaker:
    """Stops calling a dependency after ``threshold`` consecutive failures (0: never).

    Record every final outcome with :meth:`success` or :meth:`failure`; call
    :meth:`check` before the next call. Thread-safe.
    """

    def __init__(self, threshold: int) -> None:

        at_least("max_consecutive_failures", threshold, 0)
        self.threshold = threshold
        self._consecutive = 0
        self._last = ""
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        """Whether ``threshold`` failures in a row have been recorded."""
        return 0 < self.threshold <= self._consecutive

    def success(self) -> None:
        """A call succeeded: the count of consecutive failures starts again."""
        with self._lock:
            self._consecutive = 0

    def failure(self, error: str) -> None:
        """A call failed (after its retries)."""
        with self._lock:
            self._consecutive += 1
            self._last = error

    def check(self) -> None:
        """Raise :class:`CircuitOpen` when the breaker is open."""
        if self.is_open:
            raise CircuitOpen(self._consecutive, self._last)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text[:9]))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _finite_non_negative(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )
