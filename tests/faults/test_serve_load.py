"""``assay serve`` under load: concurrency, readiness, bounded queue and request size."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from assay.systems.base import Hit
from assay.systems.server import create_app, serve_in_thread

pytestmark = pytest.mark.timeout(120)


class Slow:
    """Sleeps ``delay`` s for queries starting with 'slow'; answers others at once."""

    name = "slow"

    def __init__(self, prepare_for: float = 0.0) -> None:
        self.config = {"type": "test"}
        self.prepare_for = prepare_for
        self.prepared = threading.Event()

    def prepare(self) -> None:
        time.sleep(self.prepare_for)
        self.prepared.set()

    def search(self, query: str, k: int) -> list[Hit]:
        if query.startswith("slow"):
            time.sleep(2.0)
        return [Hit("d1", 1.0)]


def test_a_fast_query_does_not_wait_behind_slow_ones() -> None:
    with serve_in_thread(create_app(Slow())) as url, ThreadPoolExecutor(4) as pool:
        slow = [pool.submit(httpx.get, url + "/search", params={"q": "slow"}, timeout=30)
                for _ in range(3)]  # fmt: skip
        time.sleep(0.3)
        started = time.monotonic()
        fast = httpx.get(url + "/search", params={"q": "fast"}, timeout=30)
        waited = time.monotonic() - started
        assert all(f.result().status_code == 200 for f in slow)
    assert fast.status_code == 200
    assert waited < 1.5  # was 3 x the slow query's time behind a lock


def test_health_is_ready_only_once_the_index_is_built() -> None:
    system = Slow(prepare_for=1.5)
    with serve_in_thread(create_app(system)) as url:
        early = httpx.get(url + "/health", timeout=5)
        search = httpx.get(url + "/search", params={"q": "x"}, timeout=5)
        assert early.status_code == 503 and early.json()["status"] == "starting"
        assert search.status_code == 503 and search.headers["retry-after"] == "1"
        deadline = time.monotonic() + 20
        while httpx.get(url + "/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert system.prepared.is_set()
        assert httpx.get(url + "/search", params={"q": "x"}, timeout=5).status_code == 200


def test_a_full_queue_answers_503_not_a_pile_up() -> None:
    app = create_app(Slow(), workers=1, max_queue=1)
    with serve_in_thread(app) as url, ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(
            lambda _: httpx.get(url + "/search", params={"q": "slow"}, timeout=30).status_code,
            range(6),
        ))  # fmt: skip
    assert answers.count(200) >= 1 and answers.count(503) >= 3


def test_query_text_is_capped() -> None:
    with serve_in_thread(create_app(Slow(), max_query_chars=100)) as url:
        answer = httpx.get(url + "/search", params={"q": "x" * 101}, timeout=5)
    assert answer.status_code == 422


def test_systems_that_are_not_thread_safe_are_serialized() -> None:
    class Unsafe(Slow):
        thread_safe = False

        def __init__(self) -> None:
            super().__init__()
            self.active = 0
            self.most = 0
            self.lock = threading.Lock()

        def search(self, query: str, k: int) -> list[Hit]:
            with self.lock:
                self.active += 1
                self.most = max(self.most, self.active)
            time.sleep(0.05)
            with self.lock:
                self.active -= 1
            return [Hit("d1", 1.0)]

    system: Any = Unsafe()
    with serve_in_thread(create_app(system)) as url, ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda _: httpx.get(url + "/search", params={"q": "a"}, timeout=30),
                      range(12)))  # fmt: skip
    assert system.most == 1
