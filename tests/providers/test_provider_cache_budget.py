"""Call-cache keys, the budget rule, and the light import of the providers package."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.providers.accounting import Budget, CallRecord, Usage, cost_bound
from assay.providers.call_cache import CallCache, call_key, default_model_cache_dir

BASE = {
    "endpoint": "http://127.0.0.1:1/v1/chat/completions",
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "params": {"temperature": 0.0, "max_tokens": 10, "structured": "json_schema"},
    "schema": {"type": "object"},
    "sample": 0,
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("endpoint", "http://other/v1/chat/completions"),
        ("model", "m2"),
        ("messages", [{"role": "user", "content": "hi!"}]),
        ("params", {"temperature": 0.7, "max_tokens": 10, "structured": "json_schema"}),
        ("schema", None),
        ("sample", 1),
    ],
)
def test_every_part_of_the_key_matters(field: str, value: object) -> None:
    assert call_key(**BASE) != call_key(**{**BASE, field: value})


def test_key_is_stable() -> None:
    assert call_key(**BASE) == call_key(**dict(reversed(list(BASE.items()))))
    assert len(call_key(**BASE)) == 64


def test_cache_round_trip_and_dir_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CallCache(tmp_path / "x")
    assert cache.get("k") is None
    cache.put("k", {"content": "a", "latency": 1.5})
    assert cache.get("k") == {"content": "a", "latency": 1.5} and len(cache) == 1
    cache.close()
    assert (tmp_path / "x" / "model-calls.sqlite").is_file()
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "env"))
    assert default_model_cache_dir() == tmp_path / "env"
    monkeypatch.delenv("ASSAY_CACHE_DIR")
    assert default_model_cache_dir() == Path(".assay") / "cache"


def test_budget_never_passes_its_limit_under_threads() -> None:
    budget = Budget(1.0)
    spent = []

    def call() -> None:
        for _ in range(50):
            if budget.reserve(0.03):
                budget.settle(0.03, 0.02)
                spent.append(0.02)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.spent <= 1.0 and budget.exhausted
    assert budget.spent == pytest.approx(sum(spent))
    assert budget.spent > 1.0 - 0.03 - 1e-9  # stopped only when the next call might not fit


def test_no_limit_never_refuses() -> None:
    budget = Budget(None)
    assert all(budget.reserve(1e9) for _ in range(10)) and not budget.exhausted


@given(st.text(max_size=200), st.integers(1, 4096))
def test_cost_bound_counts_every_byte(text: str, max_tokens: int) -> None:
    bound = cost_bound([{"role": "user", "content": text}], max_tokens, 1.0, 2.0)
    assert bound == pytest.approx((len(text.encode()) + 8 + 2 * max_tokens) / 1e6)


def test_usage_totals_separate_cost_from_spending() -> None:
    usage = Usage.total(
        [
            CallRecord(10, 5, 0.5, 0.01),
            CallRecord(10, 5, 0.7, 0.01, cached=True),
            CallRecord(error="HTTP 500"),
        ]
    )
    assert (usage.calls, usage.cached, usage.errors) == (3, 1, 1)
    assert usage.cost == pytest.approx(0.02) and usage.spent == pytest.approx(0.01)
    assert usage.latency_seconds == pytest.approx(1.2)


def test_importing_judges_and_providers_is_light() -> None:
    code = (
        "import sys, assay.judges, assay.providers, assay.cli.judge_models;"
        "print(','.join(m for m in ('numpy', 'pandas', 'httpx', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_caches_opened_together_on_a_new_file_all_work(tmp_path) -> None:
    """Workers that open their own cache on one new file at once (the matrix runner)
    all read and write it: no "database is locked" from the WAL switch."""
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        cache = CallCache(tmp_path / "shared")
        start.wait(timeout=30)
        try:
            cache.put(f"k{i}", {"i": i})
            assert cache.get(f"k{i}") == {"i": i}
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert all(CallCache(tmp_path / "shared").get(f"k{i}") == {"i": i} for i in range(8))


@settings(max_examples=100, deadline=None)
@given(
    costs=st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30),
    seed=st.integers(0, 1000),
)
def test_usage_totals_do_not_depend_on_the_order_calls_ended(costs, seed) -> None:
    """Concurrent calls end in any order: the totals are the same, to the last digit."""
    import random

    records = [CallRecord(cost=c, latency=c / 3, cached=i % 3 == 0) for i, c in enumerate(costs)]
    shuffled = records[:]
    random.Random(seed).shuffle(shuffled)
    assert Usage.total(shuffled) == Usage.total(records)
