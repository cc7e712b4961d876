"""`assay matrix` on two Ray nodes against the stub model server: the local result file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, stripped

from llm_stub import StubServer
from matrix.helpers_matrix import write_matrix

pytestmark = pytest.mark.ray

#: Fields that say when, how fast or where, not what.
VOLATILE = (
    "created_at",
    "environment",
    "latency",
    "latency_seconds",
    "latency_max",
    "latency_mean",
)


def test_matrix_on_two_nodes_equals_local(
    on_ray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_SMALL", "stub-small")
    monkeypatch.setenv("STUB_KEY", "sk-matrix-secret-42")
    monkeypatch.setenv("STUB_SMALL_IN", "2.0")
    results, asked = {}, {}
    since = now_ms()
    with StubServer() as stub:
        config = write_matrix(tmp_path, stub.base_url, repeats=2)
        for executor in ("local", "ray"):
            before = len(stub.state.requests)
            out = tmp_path / f"{executor}.json"
            cli(
                "matrix", str(config), "-o", str(out), "--format", "json",
                "--cache-dir", str(tmp_path / f"cache-{executor}"), "--no-record",
                "--executor", executor,
            )  # fmt: skip
            results[executor] = stripped(json.loads(out.read_text()), VOLATILE)
            asked[executor] = len(stub.state.requests) - before
    assert asked["ray"] == asked["local"] == 2 * 2 * 3 * 2  # prompts x models x cases x repeats
    assert results["ray"] == results["local"]
    assert "sk-matrix-secret-42" not in (tmp_path / "ray.json").read_text()
    assert len(on_ray.nodes_of("_Caller.complete", since)) == 2  # calls made on both nodes
