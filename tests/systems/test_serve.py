"""``create_app`` / ``assay serve``, and HttpSystem reading them back.

A served system seen through :class:`HttpSystem` must give exactly the ids and
scores the system gives in process.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from assay.systems.base import Hit, SystemError_, config_hash
from assay.systems.http import HttpSystem
from assay.systems.server import create_app, serve_in_thread

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]


class StandIn:
    """A deterministic little system with awkward floats and one failing query."""

    name = "stand-in"

    @property
    def config(self) -> dict[str, Any]:
        return {"type": "stand-in", "version": 1}

    def search(self, query: str, k: int) -> list[Hit]:
        if query == "boom":
            raise SystemError_("backend exploded")
        words = query.split()
        return [Hit(f"{w}-{i}", len(w) / (i + 3) + 1e-13 * i) for i, w in enumerate(words)][:k]


def _client_for(url: str) -> HttpSystem:
    return HttpSystem(
        "remote",
        url=url + "/search?q={query}&k={k}",
        hits_path="hits",
        id_path="id",
        score_path="score",
        retries=0,
    )


@pytest.fixture(scope="module")
def served() -> Any:
    with serve_in_thread(create_app(StandIn())) as url:
        yield url


def test_health_names_the_system_and_its_config_hash(served: str) -> None:
    answer = httpx.get(served + "/health", timeout=5).json()
    assert answer == {
        "status": "ready",
        "system": "stand-in",
        "config_hash": config_hash(StandIn().config),
    }


def test_search_round_trip_is_exact(served: str) -> None:
    queries = ["one two three", "ünïcödé & = ? # %", "a b c d e f g", "x"]
    remote = _client_for(served)
    expected = [StandIn().search(q, 4) for q in queries]
    assert [remote.search(q, 4) for q in queries] == expected
    assert remote.search_many(queries, 4) == expected
    remote.close()


@pytest.mark.parametrize(
    ("params", "status"),
    [({}, 422), ({"q": ""}, 422), ({"q": "a", "k": "0"}, 422), ({"q": "a", "k": "ten"}, 422)],
)
def test_bad_requests_are_rejected(served: str, params: dict[str, str], status: int) -> None:
    response = httpx.get(served + "/search", params=params, timeout=5)
    assert response.status_code == status


def test_default_k_and_a_failing_system_call(served: str) -> None:
    ok = httpx.get(served + "/search", params={"q": " ".join("abcdefghijklmno")}, timeout=5)
    assert len(ok.json()["hits"]) == 10
    failed = httpx.get(served + "/search", params={"q": "boom"}, timeout=5)
    assert failed.status_code == 502
    assert "backend exploded" in failed.json()["detail"]
    with pytest.raises(SystemError_, match="HTTP 502"):
        _client_for(served).search("boom", 3)


# -- the real command ----------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _needs(*modules: str) -> None:
    for module in modules:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not there yet")


@pytest.fixture
def serve_process() -> Any:
    procs: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> str:
        port = _free_port()
        command = [sys.executable, "-c", "from assay.cli import main; main()", "serve"]
        proc = subprocess.Popen(
            [*command, *args, "--port", str(port)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        procs.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                _, err = proc.communicate()
                raise AssertionError(f"assay serve exited {proc.returncode}: {err.decode()}")
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    return url
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError("assay serve did not answer /health within 40 s")

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.slow
def test_assay_serve_keyword_matches_in_process(serve_process: Any, examples_dir: Path) -> None:
    _needs("assay.systems.keyword", "assay.systems.config", "assay.corpora")
    from assay.corpora import load_corpus
    from assay.systems.keyword import KeywordSystem

    catalog = examples_dir / "statistics" / "catalog.csv"
    questions = examples_dir / "statistics" / "questions.csv"
    if not catalog.is_file() or not questions.is_file():
        pytest.skip("examples/statistics is not there yet")
    fields = ["name", "definition_long"]
    url = serve_process(
        "--system",
        "keyword",
        "--corpus",
        str(catalog),
        "--id-field",
        "idno",
        *[arg for field in fields for arg in ("--text-field", field)],
    )
    local = KeywordSystem(load_corpus(catalog, id_field="idno"), text_fields=fields)
    health = httpx.get(url + "/health", timeout=5).json()
    assert health["system"] == "keyword"
    assert health["config_hash"] == config_hash(local.config)
    with questions.open(newline="", encoding="utf-8") as handle:
        texts = [row["question"] for row in csv.DictReader(handle)]
    assert len(texts) >= 10
    with _client_for(url) as remote:
        served = remote.search_many(texts, 10)
    expected = [local.search(text, 10) for text in texts]
    assert served == expected
    assert any(hits for hits in expected)  # the comparison is not vacuous


def test_serve_rejects_a_bad_port() -> None:
    from assay.cli import main

    with pytest.raises(SystemExit) as info:
        main(["serve", "--system", "keyword", "--port", "70000"])
    assert info.value.code == 2
