"""Nothing is lost: parallel writer processes and a writer killed mid-transaction.

Real processes (subprocess) and a real SIGKILL, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.store.api import open_store

WORKER = Path(__file__).resolve().parent / "_store_worker.py"


def _spawn(url: str, worker: int, count: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, str(worker), str(count), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _check_consistent(url: str) -> dict[str, int]:
    """Every stored result is readable and has its metric rows; return {system: run_id}."""
    from sqlalchemy import func, select

    from assay.store.db import METRICS

    with open_store(url) as store:
        entries = store.list()
        for e in entries:
            assert set(e.metrics) == {"nDCG@10", "RR"}, e
            assert store.get(e.run_id).run.name == e.system
        with store.engine.connect() as conn:
            orphans = conn.execute(
                select(func.count())
                .select_from(METRICS)
                .where(METRICS.c.result_id.not_in([e.run_id for e in entries] or [-1]))
            ).scalar_one()
            if conn.dialect.name == "sqlite":
                assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
    assert orphans == 0
    return {e.system: e.run_id for e in entries}


def test_parallel_writers_lose_nothing(store_url: str, tmp_path: Path) -> None:
    open_store(store_url).close()  # the schema exists before the race, as in normal use
    start = tmp_path / "go"
    procs = [_spawn(store_url, w, 25, "--start-file", str(start)) for w in range(4)]
    time.sleep(0.5)
    start.touch()
    printed: dict[int, list[int]] = {}
    for w, p in enumerate(procs):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        printed[w] = [int(x) for x in out.split()]
    stored = _check_consistent(store_url)
    assert len(stored) == 100
    for w in range(4):
        assert len(printed[w]) == 25
        assert [stored[f"w{w}-{i}"] for i in range(25)] == printed[w]


def test_parallel_first_open_migrates_once(store_url: str, tmp_path: Path) -> None:
    url = store_url  # never opened: the four writers race to create the schema
    start = tmp_path / "go"
    procs = [_spawn(url, w, 3, "--start-file", str(start)) for w in range(4)]
    start.touch()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert len(_check_consistent(url)) == 12


def _read_until(proc: subprocess.Popen[str], marker: str | None, min_ids: int = 0) -> list[int]:
    """Read the worker's stdout until ``marker`` (or ``min_ids`` ids) appears."""
    assert proc.stdout is not None
    ids: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        line = line.strip()
        if marker is not None and line == marker:
            return ids
        ids.append(int(line))
        if marker is None and len(ids) >= min_ids:
            return ids
    raise AssertionError(f"worker stopped early: {proc.stderr.read() if proc.stderr else ''}")


def test_kill_inside_a_transaction(store_url: str) -> None:
    proc = _spawn(store_url, 7, 10, "--hang-at", "4")
    committed = _read_until(proc, "MID")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(committed) == 4
    stored = _check_consistent(store_url)
    assert sorted(stored.values()) == sorted(committed)
    assert "w7-4" not in stored  # the half-written result is absent, not partial
    with open_store(store_url) as store:  # the store still takes writes
        from _store_helpers import make_result

        store.record(make_result("after-kill"))
    assert "after-kill" in _check_consistent(store_url)


@pytest.mark.parametrize("after", [3, 9])
def test_kill_during_a_burst(store_url: str, after: int) -> None:
    proc = _spawn(store_url, 1, 400, "--big")
    seen = _read_until(proc, None, min_ids=after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    stored = _check_consistent(store_url)
    assert set(seen) <= set(stored.values())  # everything reported committed is there
    assert len(stored) < 400
