"""Sharded runs scored on two Ray nodes give the local result files, to the last bit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers_ray import cli, now_ms

pytestmark = pytest.mark.ray

#: Fields that say when and where, not what: left out of the comparison.
VOLATILE = ("created_at", "environment")


def _result(path: Path) -> dict:
    """A result file without the fields that say when, where and from which path."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "path"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    data = json.loads(path.read_text())
    for key in VOLATILE:
        data.pop(key, None)
    return strip(data)  # type: ignore[return-value]


def _cli(*args: str) -> None:
    cli(*args, "--no-record")


def _shards(lines: list[str], folder: Path, n: int, kind: str) -> Path:
    """``lines`` cut into ``n`` shards of equal size: queries span shards."""
    folder.mkdir()
    size = -(-len(lines) // n)
    for i in range(n):
        part = lines[i * size : (i + 1) * size]
        fields = [line.split() for line in part]
        if kind == "trec":
            (folder / f"part-{i:02d}.trec").write_text("\n".join(part) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.table(
                {
                    "query_id": [f[0] for f in fields],
                    "doc_id": [f[2] for f in fields],
                    "score": [float(f[4]) for f in fields],
                }
            )
            pq.write_table(table, folder / f"part-{i:02d}.parquet")
    return folder


@pytest.fixture(scope="module")
def runs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """trec_eval's own test run (A) and a reshuffled copy (B), whole and in shards."""
    base = tmp_path_factory.mktemp("shards")
    a_lines = (shared_data / "trec_eval_tests" / "results.test").read_text().splitlines()
    rng = np.random.default_rng(7)
    b_lines = []
    for line in a_lines:
        f = line.split()
        b_lines.append(" ".join([*f[:4], f"{float(f[4]) + rng.normal(0, 0.5):.6f}", "B"]))
    (base / "a.trec").write_text("\n".join(a_lines) + "\n")
    (base / "b.trec").write_text("\n".join(b_lines) + "\n")
    return {
        "qrels": shared_data / "trec_eval_tests" / "qrels.test",
        "a": base / "a.trec",
        "b": base / "b.trec",
        "a_shards": _shards(a_lines, base / "a_shards", 4, "trec"),
        "b_shards": _shards(b_lines, base / "B", 3, "parquet"),  # named as b's tag
        "base": base,
    }


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_sharded_evaluate_and_compare_equal_the_local_files(
    runs: dict[str, Path], executor: str, request: pytest.FixtureRequest
) -> None:
    cluster = request.getfixturevalue("ray_cluster") if executor == "ray" else None
    since = now_ms()
    out = runs["base"] / executor
    out.mkdir()
    qrels = str(runs["qrels"])
    metrics = ["-m", "nDCG@10", "-m", "AP", "-m", "P@5", "-m", "R@100", "-m", "RR"]
    for name, whole, sharded in (
        ("a", runs["a"], runs["a_shards"]),
        ("b", runs["b"], runs["b_shards"]),
    ):
        local = str(out / f"{name}.json")
        _cli("evaluate", qrels, str(whole), *metrics, "--name", name, "-o", local)
        _cli(
            "evaluate", qrels, str(sharded), *metrics, "--name", name,
            "-o", str(out / f"{name}-sharded.json"), "--executor", executor,
        )  # fmt: skip
        assert _result(out / f"{name}-sharded.json") == _result(out / f"{name}.json")
    _cli("compare", qrels, str(runs["a"]), str(runs["b"]), *metrics, "-o", str(out / "c.json"))
    _cli(
        "compare", qrels, str(runs["a_shards"]), str(runs["b_shards"]), *metrics,
        "-o", str(out / "c-sharded.json"), "--executor", executor,
    )  # fmt: skip
    assert _result(out / "c-sharded.json") == _result(out / "c.json")
    if cluster is not None:  # the shards were read on both nodes
        assert len(cluster.nodes_of("assay:read_shard", since)) == 2
