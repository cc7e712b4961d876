"""Live systems fail fast and honestly, against a local misbehaving server.

Timings are generous bounds (a closed port with 15 queries: a few seconds),
never fine-grained.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from stub_server import closed_port, stub_server

from assay.judgments.models import JudgmentSet
from assay.systems.base import SystemError_
from assay.systems.http import HttpSystem
from assay.systems.runner import SystemUnavailable, run_system

pytestmark = pytest.mark.timeout(120)


def _js(n: int = 1) -> JudgmentSet:
    records = [{"query_id": f"q{i:02d}", "text": f"t{i}"} for i in range(n)]
    return JudgmentSet.from_records(records, {f"q{i:02d}": {"d": 1} for i in range(n)})


def _system(url: str, **kwargs: Any) -> HttpSystem:
    kwargs.setdefault("backoff", 0.05)
    return HttpSystem("svc", url=url, **kwargs)


def test_404_is_sent_once_per_query() -> None:
    with stub_server() as (base, stub):
        outcome = run_system(_system(f"{base}/status/404?q={{query}}"), _js(3), progress=False)
    assert stub.calls["status"] == 3
    assert all(f.attempts == 1 and "HTTP 404" in f.error for f in outcome.failures)


@pytest.mark.parametrize("code", [408, 429, 500, 503])
def test_transient_statuses_are_retried_by_one_layer(code: int) -> None:
    with stub_server() as (base, stub):
        outcome = run_system(_system(f"{base}/status/{code}", retries=2), _js(1), progress=False)
    assert stub.calls["status"] == 3  # 1 + 2 retries, not (1 + 2) * (1 + 2)
    assert outcome.failures[0].attempts == 3


def test_retry_after_is_honoured() -> None:
    with stub_server() as (base, stub):
        outcome = run_system(_system(f"{base}/retry-after/1?q={{query}}"), _js(1), progress=False)
    assert not outcome.failures
    assert stub.calls["retry-after"] == 2
    assert stub.times[1] - stub.times[0] >= 0.9  # asked for 1 s; backoff alone is 0.05 s


@pytest.mark.parametrize("path", ["drip", "driphead"])
def test_timeout_is_a_deadline_for_the_whole_request(path: str) -> None:
    with stub_server() as (base, _):
        system = _system(f"{base}/{path}", timeout=1.0, retries=0)
        started = time.monotonic()
        with pytest.raises(SystemError_, match="within timeout 1 s"):
            system.search("q", 3)
        assert time.monotonic() - started < 3.0  # the server would drip for 20 s


def test_response_size_is_capped() -> None:
    with stub_server() as (base, _):
        system = _system(f"{base}/huge?mb=8", max_response_bytes=1024 * 1024, retries=0)
        with pytest.raises(SystemError_, match="larger than max_response_bytes"):
            system.search("q", 3)
        declared = _system(f"{base}/declared", retries=0)
        with pytest.raises(SystemError_, match="larger than max_response_bytes"):
            declared.search("q", 3)


def test_closed_port_with_15_queries_stops_in_seconds(tmp_path: Path) -> None:
    from assay.cli.app import main

    port = closed_port()
    (tmp_path / "assay.toml").write_text(
        f'[systems.broken]\ntype = "http"\nurl = "http://127.0.0.1:{port}/s?q={{query}}"\n',
        encoding="utf-8",
    )
    qrels = tmp_path / "q.jsonl"
    qrels.write_text(
        "".join(
            json.dumps({"query_id": f"q{i}", "query": f"t {i}", "relevant": {"d": 1}}) + "\n"
            for i in range(15)
        )
    )
    started = time.monotonic()
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "run",
                str(qrels),
                "-s",
                "broken",
                "--config",
                str(tmp_path / "assay.toml"),
                "-o",
                str(tmp_path / "r.trec"),
                "--retries",
                "1",
                "--no-cache",
            ]
        )
    assert exc.value.code == 1
    assert time.monotonic() - started < 10  # was 54 s


def test_circuit_breaker_stops_the_run() -> None:
    port = closed_port()
    system = _system(f"http://127.0.0.1:{port}/s?q={{query}}", retries=0, concurrency=1)
    with pytest.raises(SystemUnavailable, match="consecutive failures") as exc:
        run_system(system, _js(40), progress=False, max_consecutive_failures=3)
    assert exc.value.exit_code == 1
    outcome = run_system(system, _js(6), progress=False, max_consecutive_failures=0)
    assert len(outcome.failures) == 6


@pytest.mark.parametrize("mode", ["drop-headers", "refuse"])
def test_cross_origin_redirect_never_carries_headers(mode: str, monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_T_SECRET", "hunter2-secret")
    with stub_server() as (first, _), stub_server() as (other, seen):
        system = _system(
            f"{first}/redirect?to={other}/ok&q={{query}}",
            headers={"X-Api-Key": "${ASSAY_T_SECRET}", "X-Team": "search"},
            cross_origin_redirects=mode,
            retries=0,
        )
        if mode == "refuse":
            with pytest.raises(SystemError_, match="another origin"):
                system.search("q", 3)
            assert seen.calls["ok"] == 0
            return
        assert [h.doc_id for h in system.search("q", 3)] == ["dx"]
    sent = {k.lower(): v for k, v in seen.headers[0].items()}
    assert "x-api-key" not in sent and "x-team" not in sent


def test_same_origin_redirect_keeps_headers() -> None:
    with stub_server() as (base, stub):
        system = _system(f"{base}/redirect?to=/ok", headers={"X-Team": "search"}, retries=0)
        system.search("q", 3)
    assert {k.lower(): v for k, v in stub.headers[1].items()}["x-team"] == "search"


def test_runner_batches_through_search_many() -> None:
    class Batched:
        name = "batched"

        def __init__(self) -> None:
            self.config = {"type": "test"}
            self.batches: list[int] = []

        def search(self, query: str, k: int) -> list:
            raise AssertionError("search_many should be used")

        def search_many(self, queries: list[str], k: int) -> list:
            from assay.systems.base import Hit

            self.batches.append(len(queries))
            return [[Hit("d", 1.0)] for _ in queries]

    system = Batched()
    outcome = run_system(system, _js(100), progress=False)
    assert not outcome.failures and sum(system.batches) == 100 and len(system.batches) == 2
