"""`judge llm` on two Ray nodes against the stub model server: the labels, cost and call
cache a local run gives, and the model's rate limit never exceeded across the nodes."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, stripped

from llm_stub import StubServer

pytestmark = pytest.mark.ray

DATA = Path(__file__).resolve().parents[1] / "data" / "judges"
RATE = 600  # requests per minute: one every 0.1 s
#: Fields that say when, how fast or where, not what.
VOLATILE = ("date", "latency", "latency_seconds", "output", "created_at")


def _pool(folder: Path) -> Path:
    """Every query of the bundled pool against every bundled document (30 pairs)."""
    queries = {}
    for line in (DATA / "pool.jsonl").read_text().splitlines():
        row = json.loads(line)
        queries[row["query_id"]] = row["query"]
    docs = [json.loads(line)["id"] for line in (DATA / "docs.jsonl").read_text().splitlines()]
    rows = [
        json.dumps({"query_id": q, "query": text, "doc_id": d})
        for q, text in sorted(queries.items())
        for d in docs
    ]
    path = folder / "pool.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path


def _cache(folder: Path) -> dict[str, dict]:
    with sqlite3.connect(folder / "model-calls.sqlite") as db:
        rows = db.execute("SELECT key, answer FROM calls").fetchall()
    return {key: stripped(json.loads(answer), VOLATILE) for key, answer in rows}


def _labels(path: Path) -> list[dict]:
    return [stripped(json.loads(line), VOLATILE) for line in path.read_text().splitlines()]


@contextmanager
def stamped_stub() -> Iterator[tuple[StubServer, list[float]]]:
    """A fresh stub model server, noting when each request arrives."""
    server = StubServer()
    arrivals: list[float] = []

    async def stamp(request, call_next):
        arrivals.append(time.monotonic())
        return await call_next(request)

    server.server.config.app.middleware("http")(stamp)
    with server:
        yield server, arrivals


def test_judge_llm_on_two_nodes_equals_local_under_one_rate_limit(
    on_ray, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "assay.toml"
    config.write_text(
        '[models.stub]\nbase_url = "${STUB_URL}"\nmodel = "stub-small"\n'
        "input_price = 1.0\noutput_price = 2.0\nconcurrency = 4\ntimeout = 60\n"
        f"rate_limit = {RATE}\n"
    )
    pool = _pool(tmp_path)
    jobs, asked = {}, {}
    for executor in ("local", "ray"):
        since = now_ms()
        with stamped_stub() as (stub, arrivals):  # a fresh server: its 429s come again
            monkeypatch.setenv("STUB_URL", stub.base_url)
            cli(
                "judge", "llm", str(pool), "--corpus", str(DATA / "docs.jsonl"),
                "--model", "stub", "--config", str(config),
                "-o", str(tmp_path / f"{executor}.jsonl"),
                "--cache-dir", str(tmp_path / f"cache-{executor}"), "--format", "json",
                "--executor", executor,
            )  # fmt: skip
        jobs[executor] = stripped(json.loads(capsys.readouterr().out), VOLATILE)
        asked[executor] = len(arrivals)
        # slots are 60/RATE s apart when sent; arrivals at the stub jitter by the machine's
        # load, so any second may hold one arrival more than the RATE/60 + 1 slots it spans
        gaps = [b - a for a, b in zip(arrivals, arrivals[RATE // 60 + 2 :], strict=False)]
        assert min(gaps) >= 1.0
        assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * 60 / RATE - 0.2
    assert asked["ray"] == asked["local"] == 33  # 30 pairs, 3 asked again after a 429
    # the same labels, counts and cost (a generous timeout: on a loaded machine a slot's wait
    # through the bucket actor counts toward it)
    assert jobs["ray"]["summary"] == jobs["local"]["summary"]
    assert jobs["ray"] == jobs["local"]
    assert _labels(tmp_path / "ray.jsonl") == _labels(tmp_path / "local.jsonl")
    assert _cache(tmp_path / "cache-ray") == _cache(tmp_path / "cache-local")
    assert len(_cache(tmp_path / "cache-ray")) == 30  # every answer cached once, by the driver
    assert len(on_ray.nodes_of("_Caller.complete", since)) == 2  # calls made on both nodes
