"""Ctrl-C during `assay run --executor ray`: a prompt exit, nothing half-written, no task left.

The command runs in a child process joined to the test cluster (``RAY_ADDRESS``)
against an HTTP system that answers slowly (one byte every 0.2 s); once Ray's
state API shows its tasks running, the child gets SIGINT.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_ray import now_ms

from faults.stub_server import stub_server

pytestmark = pytest.mark.ray

SRC = Path(__file__).resolve().parents[2] / "src"


def _tasks(dashboard: str, since: int) -> list[object]:
    """The `ask_chunk` tasks created since ``since``, as Ray's state API lists them."""
    from ray.util.state import list_tasks

    tasks = list_tasks(
        address=dashboard,
        filters=[("name", "=", "assay:ask_chunk")],
        limit=1000,
        detail=True,
        raise_on_missing_output=False,
    )
    return [t for t in tasks if (t.creation_time_ms or 0) >= since]


def _running(dashboard: str, since: int) -> bool:
    return any(t.state == "RUNNING" for t in _tasks(dashboard, since))


def _cancelled(dashboard: str, since: int) -> bool:
    """Every task of the run is listed as cancelled (none running, none ended otherwise)."""
    states = {(t.state, t.error_type) for t in _tasks(dashboard, since)}
    return states == {("FAILED", "TASK_CANCELLED")}


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False


def test_ctrl_c_cancels_the_tasks_and_writes_nothing(ray_cluster, tmp_path: Path) -> None:
    lines = [
        json.dumps({"query_id": f"q{i}", "query": f"ok {i}", "relevant": {"d": 1}})
        for i in range(12)
    ]
    (tmp_path / "judgments.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    since = now_ms()
    with stub_server() as (base, stub):
        (tmp_path / "assay.toml").write_text(
            f'[systems.slow]\ntype = "http"\nurl = "{base}/drip?q={{query}}"\ntimeout = 120\n'
        )
        env = {
            **os.environ,
            "RAY_ADDRESS": ray_cluster.cluster.address,
            "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        }
        args = ["run", str(tmp_path / "judgments.jsonl"), "--system", "slow", "--no-cache"]
        args += ["--config", str(tmp_path / "assay.toml"), "-o", str(out / "run.trec")]
        args += ["--executor", "ray", "-q"]
        child = subprocess.Popen(
            [sys.executable, "-c", "from assay.cli import main; main()", *args],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            asking = _wait_for(lambda: stub.calls["drip"] >= 1, 60)
            running = _wait_for(lambda: _running(ray_cluster.dashboard, since), 20)
            assert asking and running, "the run never started"
            child.send_signal(signal.SIGINT)
            t0 = time.monotonic()
            stdout, stderr = child.communicate(timeout=20)
            took = time.monotonic() - t0
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        # no task of the run keeps asking the server once it has gone: every one was
        # cancelled by the command (not merely ended with its driver: WORKER_DIED)
        assert _wait_for(lambda: _cancelled(ray_cluster.dashboard, since), 15), {
            (t.state, t.error_type) for t in _tasks(ray_cluster.dashboard, since)
        }
    assert child.returncode == 130, (stdout, stderr)
    assert stderr.startswith("interrupted (Ctrl-C)"), stderr
    assert "Traceback" not in stderr + stdout
    assert took < 15
    assert list(out.iterdir()) == []  # no run file, no sidecar, no temporary file
