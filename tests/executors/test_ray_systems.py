"""System calls on two Ray nodes write the run files a local run writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, same_json

from faults.stub_server import stub_server

pytestmark = pytest.mark.ray

#: Sidecar fields that say when and how fast, not what.
TIMING = ("latency_ms", "started", "finished")


def _judgments(folder: Path, n: int = 40) -> Path:
    """``n`` queries; every seventh is one the echo server fails (HTTP 500)."""
    lines = []
    for i in range(n):
        text = f"bad {i}" if i % 7 == 3 else f"ok {i}"
        relevant = {f"d{text.replace(' ', '_')}": 1, f"d{i % 5}": 1}
        lines.append(json.dumps({"query_id": f"q{i:02d}", "query": text, "relevant": relevant}))
    path = folder / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _both(tmp: Path, judgments: Path, *args: str, before_ray: object = None) -> None:
    """The same ``assay run`` locally and on Ray; the run files and sidecars must agree."""
    common = ["run", str(judgments), *args, "--no-cache", "--max-failed", "100", "-q"]
    (tmp / "local").mkdir()
    (tmp / "ray").mkdir()
    cli(*common, "-o", str(tmp / "local" / "run.trec"))
    if callable(before_ray):
        before_ray()
    cli(*common, "-o", str(tmp / "ray" / "run.trec"), "--executor", "ray")
    local, ray = (tmp / "local" / "run.trec").read_text(), (tmp / "ray" / "run.trec").read_text()
    assert ray.replace(str(tmp / "ray"), "") == local.replace(str(tmp / "local"), "")
    same_json(tmp / "ray" / "run.trec.json", tmp / "local" / "run.trec.json", TIMING)


def test_http_system_run_on_two_nodes_equals_local(on_ray, tmp_path: Path) -> None:
    since = now_ms()
    judgments = _judgments(tmp_path)
    with stub_server() as (base, stub):
        config = tmp_path / "assay.toml"
        config.write_text(
            f'[systems.svc]\ntype = "http"\nurl = "{base}/echo500?q={{query}}"\nconcurrency = 2\n'
        )
        _both(tmp_path, judgments, "--system", "svc", "--config", str(config), "--retries", "0")
        asked = stub.calls["echo500"]
    sidecar = json.loads((tmp_path / "ray" / "run.trec.json").read_text())
    assert [f["query_id"] for f in sidecar["failures"]] == [
        "q03",
        "q10",
        "q17",
        "q24",
        "q31",
        "q38",
    ]
    assert asked == 2 * 40  # every query asked once per run: none lost, none asked twice
    assert len(on_ray.nodes_of("assay:ask_chunk", since)) == 2


SYSTEM = '''
import os, signal
from pathlib import Path

MARK = Path(__file__).with_name("killed")


def search(query, k):
    """Deterministic hits; the first time "ok 13" is asked without MARK, the worker dies."""
    if query == "ok 13" and not MARK.exists():
        MARK.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    n = int(query.split()[1])
    return [(f"d{(n * 7 + i) % 11}", float(10 - i)) for i in range(min(k, 6))]
'''


def test_killed_worker_is_retried_and_no_query_is_lost(on_ray, tmp_path: Path) -> None:
    """A worker process killed (SIGKILL, by its PID) mid-run: Ray runs its task again."""
    since = now_ms()
    judgments = _judgments(tmp_path)
    (tmp_path / "mine.py").write_text(SYSTEM)
    mark = tmp_path / "killed"
    mark.write_text("not on the local run")
    _both(
        tmp_path,
        judgments,
        "--system",
        f"{tmp_path / 'mine.py'}:search",
        before_ray=mark.unlink,
    )
    killed = int(mark.read_text())  # the worker that asked "ok 13" first was killed
    assert killed != os.getpid()
    sidecar = json.loads((tmp_path / "ray" / "run.trec.json").read_text())
    assert sidecar["failures"] == [] and sidecar["succeeded"] == 40
    assert len(on_ray.nodes_of("assay:ask_chunk", since)) == 2


DIES = '''
import os, signal


def search(query, k):
    """Kills the worker asking "ok 13", every time."""
    if query == "ok 13":
        os.kill(os.getpid(), signal.SIGKILL)
    return [("d1", 1.0)]
'''


def test_a_worker_that_never_comes_back_fails_its_queries(ray_cluster, tmp_path: Path) -> None:
    """Every attempt of a task loses its worker: its queries are reported as failed (as for a
    server that never answers); the others are scored."""
    from assay.executors import ExecutorOptions, use
    from assay.judgments import load_judgments
    from assay.systems.python import PythonSystem, load_function
    from assay.systems.runner import run_system

    (tmp_path / "dies.py").write_text(DIES)
    system = PythonSystem(load_function(f"{tmp_path / 'dies.py'}:search"), name="dies")
    js = load_judgments(_judgments(tmp_path))
    with use(ExecutorOptions(executor="ray", max_retries=1)):
        outcome = run_system(system, js, k=5, progress=False)
    assert [f.query_id for f in outcome.failures] == ["q13"]
    assert "Ray worker" in outcome.failures[0].error
    assert len(outcome.run.query_ids) == 39


def test_failed_attempts_in_a_row_are_counted_across_tasks(
    on_ray, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that always fails: 4 queries a task, 3 attempts each, so no task alone makes
    the 15 failed attempts in a row that stop a run; the driver counts them over the tasks
    in order and stops where a local run stops, with the same message."""
    judgments = _judgments(tmp_path, n=24)
    said = {}
    with stub_server() as (base, _):
        config = tmp_path / "assay.toml"
        config.write_text(
            f'[systems.dead]\ntype = "http"\nurl = "{base}/status/503?q={{query}}"\n'
            "concurrency = 2\nretries = 2\nbackoff = 0\n"
        )
        for executor in ("local", "ray"):
            capsys.readouterr()
            cli(
                "run", str(judgments), "--system", "dead", "--config", str(config),
                "--no-cache", "-q", "--max-consecutive-failures", "5",
                "-o", str(tmp_path / f"{executor}.trec"), "--executor", executor,
                code=1,
            )  # fmt: skip
            said[executor] = capsys.readouterr().err
            assert not (tmp_path / f"{executor}.trec").exists()
    assert "15 failed attempts in a row" in said["local"]
    assert "(4 queries failed, 0 succeeded)" in said["local"]
    assert said["ray"].replace("ray.trec", "") == said["local"].replace("local.trec", "")
