"""The shared retry rule: backoff, jitter, Retry-After, deadline, no retry of other errors."""

from __future__ import annotations

import random

import pytest

from assay.core.retry import RetryPolicy, Transient, call_with_retries, parse_retry_after


def _flaky(failures: int, retry_after: float | None = None):
    calls = {"n": 0}

    def call() -> str:
        calls["n"] += 1
        if calls["n"] <= failures:
            raise Transient("busy", retry_after=retry_after)
        return "ok"

    return call, calls


def test_succeeds_after_transient_failures_and_counts_attempts() -> None:
    call, calls = _flaky(2)
    waits: list[float] = []
    value, attempts = call_with_retries(call, RetryPolicy(retries=2, jitter=0), sleep=waits.append)
    assert (value, attempts, calls["n"]) == ("ok", 3, 3)
    assert waits == [0.5, 1.0]


def test_gives_up_after_retries_with_attempts_on_the_error() -> None:
    call, calls = _flaky(10)
    with pytest.raises(Transient) as info:
        call_with_retries(call, RetryPolicy(retries=1), sleep=lambda _s: None)
    assert info.value.attempts == 2
    assert calls["n"] == 2


def test_other_errors_are_never_retried() -> None:
    calls = {"n": 0}

    def call() -> None:
        calls["n"] += 1
        raise ValueError("client error")

    with pytest.raises(ValueError):
        call_with_retries(call, RetryPolicy(retries=5), sleep=lambda _s: None)
    assert calls["n"] == 1


def test_retry_after_replaces_backoff_and_is_capped() -> None:
    waits: list[float] = []
    call, _ = _flaky(1, retry_after=7.0)
    call_with_retries(call, RetryPolicy(retries=1), sleep=waits.append)
    assert waits == [7.0]
    waits.clear()
    call, _ = _flaky(1, retry_after=3600.0)
    call_with_retries(call, RetryPolicy(retries=1, max_retry_after=5.0), sleep=waits.append)
    assert waits == [5.0]


def test_deadline_stops_before_a_wait_that_would_pass_it() -> None:
    call, calls = _flaky(10)
    with pytest.raises(Transient):
        call_with_retries(
            call,
            RetryPolicy(retries=10, jitter=0),
            deadline=1.2,
            clock=lambda: 0.0,
            sleep=lambda _s: None,
        )
    assert calls["n"] == 3


@pytest.mark.parametrize("attempt", [1, 2, 3, 8])
def test_jittered_wait_stays_within_bounds(attempt: int) -> None:
    policy = RetryPolicy(backoff=0.5, max_backoff=4.0, jitter=0.5)
    rng = random.Random(3)
    base = min(0.5 * 2 ** (attempt - 1), 4.0)
    for _ in range(200):
        assert base * 0.5 <= policy.wait(attempt, rng=rng) <= base


@pytest.mark.parametrize(
    "kwargs",
    [{"retries": -1}, {"retries": True}, {"backoff": float("nan")}, {"jitter": 2.0}],
)
def test_invalid_policies_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)


def test_parse_retry_after_seconds_and_dates() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:30 GMT", now=now) == pytest.approx(10.0)
