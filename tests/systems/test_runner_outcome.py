"""run_system: retries and failures, no-answer queries, concurrency, cache, abstention."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.runs.models import Run
from assay.systems.abstain import abstention_report
from assay.systems.base import FunctionSystem, Hit
from assay.systems.cache import RunCache
from assay.systems.runner import run_system


def _judgments() -> JudgmentSet:
    return JudgmentSet.from_records(
        [
            {"query_id": "q1", "text": "alpha"},
            {"query_id": "q2", "text": "beta"},
            {"query_id": "q3", "text": "flaky"},
            {"query_id": "q4", "text": "nothing", "no_answer": True},
        ],
        {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}},
    )


class Counting:
    """A system that fails on 'flaky' a given number of times and counts calls."""

    def __init__(self, fail_times: int = 0, name: str = "counting") -> None:
        self.name = name
        self.fail_times = fail_times
        self.calls: list[str] = []
        self._lock = threading.Lock()

    @property
    def config(self) -> dict:
        return {"type": "test", "fail_times": self.fail_times}

    def search(self, query: str, k: int) -> list[Hit]:
        with self._lock:
            self.calls.append(query)
            if query == "flaky" and self.calls.count("flaky") <= self.fail_times:
                raise ConnectionError("boom")
        if query == "nothing":
            return [Hit("d9", 0.1)]
        return [Hit(f"d{i}", 1.0 / i) for i in range(1, 6)][:k]


def test_all_queries_run_including_no_answer() -> None:
    system = Counting()
    outcome = run_system(system, _judgments(), k=3, progress=False)
    assert outcome.failures == []
    assert sorted(system.calls) == ["alpha", "beta", "flaky", "nothing"]
    assert outcome.run.query_ids == ["q1", "q2", "q3", "q4"]
    assert len(outcome.run.frame[outcome.run.frame["query_id"] == "q1"]) == 3  # cut at k
    assert outcome.k == 3 and outcome.queries == 4
    assert outcome.judgments_version == _judgments().version
    assert set(outcome.latency_ms) == {"p50", "p95", "mean"}
    assert outcome.started <= outcome.finished
    assert outcome.run.metadata["config_hash"] == outcome.config_hash


def test_retry_then_success() -> None:
    system = Counting(fail_times=2)
    outcome = run_system(system, _judgments(), retries=2, backoff=0, progress=False)
    assert outcome.failures == [] and system.calls.count("flaky") == 3


def test_failure_is_recorded_not_scored_empty() -> None:
    system = Counting(fail_times=5)
    outcome = run_system(system, _judgments(), retries=1, backoff=0, progress=False)
    (failure,) = outcome.failures
    assert failure.query_id == "q3" and failure.attempts == 2
    assert "ConnectionError: boom" in failure.error
    assert "q3" not in outcome.run.query_ids
    assert outcome.metadata()["succeeded"] == 3


def test_exclude_no_answer() -> None:
    outcome = run_system(Counting(), _judgments(), include_no_answer=False, progress=False)
    assert "q4" not in outcome.run.query_ids and outcome.queries == 3


def test_invalid_results_become_failures() -> None:
    system = FunctionSystem(lambda q, k: ["d1", "d1"], name="dup")
    outcome = run_system(system, _judgments(), retries=0, progress=False)
    assert len(outcome.failures) == 4 and "duplicate doc_id 'd1'" in outcome.failures[0].error


def test_concurrency_gives_the_same_run() -> None:
    one = run_system(Counting(), _judgments(), progress=False)
    many = run_system(Counting(), _judgments(), concurrency=4, progress=False)
    assert one.run.to_dict() == many.run.to_dict()
    assert many.run.query_ids == ["q1", "q2", "q3", "q4"]  # judgment order kept


def test_bad_arguments() -> None:
    with pytest.raises(UsageError):
        run_system(Counting(), _judgments(), k=0, progress=False)
    with pytest.raises(UsageError):
        run_system(Counting(), _judgments(), concurrency=0, progress=False)


def test_cache_hit_does_not_call_the_system(tmp_path: Path) -> None:
    cache = RunCache(tmp_path / "cache")
    first = Counting()
    a = run_system(first, _judgments(), k=3, progress=False, cache=cache)
    second = Counting()
    b = run_system(second, _judgments(), k=3, progress=False, cache=cache)
    assert second.calls == [] and b.cached and not a.cached
    assert b.run.to_dict() == a.run.to_dict()
    # A different k is a different key.
    run_system(second, _judgments(), k=2, progress=False, cache=cache)
    assert len(second.calls) == 4


def test_failures_are_not_cached(tmp_path: Path) -> None:
    cache = RunCache(tmp_path / "cache")
    run_system(Counting(fail_times=9), _judgments(), retries=0, progress=False, cache=cache)
    assert not list((tmp_path / "cache").glob("*.json"))
    again = Counting()
    run_system(again, _judgments(), retries=0, progress=False, cache=cache)
    assert len(again.calls) == 4


def test_cache_dir_from_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "envcache"))
    assert RunCache().directory == tmp_path / "envcache"


def test_abstention_report() -> None:
    judgments = _judgments()
    run = Run.from_dict({"q1": [("d1", 0.9)], "q2": [("d2", 0.2)], "q4": [("d9", 0.1)]})
    report = abstention_report(run, judgments, 0.5, failed=["q3"])
    assert report.no_answer_queries == 1 and report.no_answer_abstained == 1
    assert report.abstention_accuracy == 1.0
    assert report.answerable_queries == 2 and report.answerable_abstained == 1  # q2 below
    assert report.false_abstention_rate == 0.5
    assert report.abstained_ids == ["q2", "q4"] and report.excluded_ids == ["q3"]
    missing = abstention_report(run, judgments, 0.5)
    assert missing.answerable_abstained == 2  # q3 has no results at all


def test_abstention_needs_scores() -> None:
    run = Run.from_dict({"q1": ["d1"]})
    with pytest.raises(UsageError, match="no scores"):
        abstention_report(run, _judgments(), 0.5)
