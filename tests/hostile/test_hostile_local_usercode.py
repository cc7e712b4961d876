"""User functions bounded: Python systems and matrix baselines that sleep, loop, yield
forever, flood or exit become failed calls after their deadline, never a hang or exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from assay.cli.app import main

QRELS = [
    {"query_id": f"q{i}", "query": f"question number {i}", "relevant": {f"d{i}": 1}}
    for i in range(1, 4)
]

FUNCTIONS = """
import itertools, sys, time

def sleeps(query, k):
    time.sleep(3600)

def loops(query, k):
    while True:
        pass

def forever(query, k):
    return (f"d{i}" for i in itertools.count())

def flood(query, k):
    return [f"d{i}" for i in range(1_000_000)]

def exits(query, k):
    raise SystemExit(0)

def interrupts(query, k):
    raise KeyboardInterrupt

def fine(query, k):
    return ["d1", "d2"]
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "qrels.jsonl").write_text("\n".join(json.dumps(q) for q in QRELS) + "\n")
    (tmp_path / "user.py").write_text(FUNCTIONS)
    tables = [
        f'[systems.{n}]\ntype = "python"\nfunction = "user.py:{n}"\ntimeout = {t}\n'
        for n, t in [(n, 0.5) for n in ("sleeps", "loops", "forever", "exits", "interrupts")]
        + [("flood", 60)]
    ]
    (tmp_path / "assay.toml").write_text("\n".join(tables))
    return tmp_path


def _cli(project: Path, system: str, *extra: str, limit: float = 60) -> subprocess.CompletedProcess:
    """The CLI in its own process: the process must end (abandoned threads are daemons)."""
    import assay

    src = str(Path(assay.__file__).resolve().parents[1])
    env = {**os.environ, "ASSAY_CACHE_DIR": str(project / "cache"), "PYTHONPATH": src}
    argv = [sys.executable, "-c", "from assay.cli.app import main; main()"]
    argv += ["run", "qrels.jsonl", "--system", system]
    argv += ["-o", f"{system}.trec", "-k", "10", "--no-progress", *extra]
    return subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=limit, check=False
    )


@pytest.mark.parametrize("name", ["sleeps", pytest.param("loops", marks=pytest.mark.slow)])
def test_a_function_that_never_returns_fails_after_its_timeout(project: Path, name: str) -> None:
    start = time.monotonic()
    done = _cli(project, name, "--max-consecutive-failures", "0")
    elapsed = time.monotonic() - start
    assert done.returncode == 1, done.stderr + done.stdout
    assert "did not return within 0.5 s" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    side = json.loads((project / f"{name}.trec.json").read_text())
    assert [f["query_id"] for f in side["failures"]] == ["q1", "q2", "q3"]
    assert all(f["attempts"] == 1 for f in side["failures"])  # a timeout is not retried
    assert elapsed < 30  # 3 queries x 0.5 s plus start-up; never the function's 3600 s


@pytest.mark.parametrize("name", ["exits", pytest.param("interrupts", marks=pytest.mark.slow)])
def test_exit_inside_a_function_is_a_failed_call_not_exit_0(project: Path, name: str) -> None:
    done = _cli(project, name)
    assert done.returncode == 1, done.stderr + done.stdout
    out = done.stdout + done.stderr
    assert ("SystemExit" if name == "exits" else "KeyboardInterrupt") in out
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["forever", "flood"])
def test_results_beyond_k_are_cut_and_counted(
    project: Path, name: str, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(project / "cache"))
    with pytest.raises(SystemExit) as exc:
        main(["run", "qrels.jsonl", "-s", name, "-o", "r.trec", "-k", "5", "--no-progress"])
    out = capsys.readouterr()
    assert exc.value.code in (0, None), out.err + out.out
    assert "3 queries returned more than k=5" in out.out
    lines = (project / "r.trec").read_text().splitlines()
    rows = [line for line in lines if not line.startswith("#")]
    assert len(rows) == 15  # 3 queries x k
    assert json.loads((project / "r.trec.json").read_text())["over_depth_queries"] == 3


def test_a_bad_timeout_is_refused_when_the_config_is_read(project: Path, capsys) -> None:
    for value in ("inf", "nan", "0", "-1", "1e300", '"soon"'):
        (project / "bad.toml").write_text(
            f'[systems.x]\ntype = "python"\nfunction = "user.py:fine"\ntimeout = {value}\n'
        )
        with pytest.raises(SystemExit) as exc:
            main(
                [
                    "run",
                    str(project / "qrels.jsonl"),
                    "-s",
                    "x",
                    "--config",
                    str(project / "bad.toml"),
                    "-o",
                    str(project / "x.trec"),
                    "--no-progress",
                ]
            )
        err = capsys.readouterr().err
        assert exc.value.code == 2, (value, err)
        assert "timeout" in err and "unexpected" not in err, err
        assert not (project / "x.trec").exists()


def test_matrix_baselines_are_bounded_by_the_same_helper(tmp_path: Path) -> None:
    from assay.matrix.config import Provider
    from assay.systems.usercode import UserCodeFailed, UserCodeTimeout, call_baseline

    def sleeper(system_prompt: str, question: str, documents: list) -> str:
        time.sleep(3600)
        return "never"

    def leaver(system_prompt: str, question: str, documents: list) -> str:
        raise SystemExit(0)

    def flooder(system_prompt: str, question: str, documents: list) -> list:
        return ["x" * 1000] * 2000

    slow = Provider("slow", "baseline", function="x.py:sleeper", timeout=0.2)
    with pytest.raises(UserCodeTimeout, match=r"within 0\.2 s"):
        call_baseline(sleeper, slow, "p", "q", [])
    with pytest.raises(UserCodeFailed, match="SystemExit"):
        call_baseline(leaver, slow, "p", "q", [])
    with pytest.raises(UserCodeFailed, match="characters"):
        call_baseline(flooder, Provider("big", "baseline", function="x.py:f"), "p", "q", [])


def test_matrix_config_takes_and_checks_a_baseline_timeout(tmp_path: Path) -> None:
    from assay.core.errors import UsageError
    from assay.matrix.config import load_matrix

    def write(timeout: str) -> Path:
        path = tmp_path / "matrix.toml"
        path.write_text(
            textwrap.dedent(
                f"""
                [matrix]
                cases = "cases.jsonl"
                [prompts.p]
                text = "answer"
                [baselines.b]
                function = "b.py:answer"
                timeout = {timeout}
                """
            )
        )
        return path

    (tmp_path / "cases.jsonl").write_text(
        json.dumps(
            {
                "case_id": "c1",
                "question": "q",
                "documents": [{"id": "d", "text": "t"}],
                "expected_status": "answered",
            }
        )
        + "\n"
    )
    assert load_matrix(write("2.5")).providers[0].timeout == 2.5
    with pytest.raises(UsageError, match="timeout"):
        load_matrix(write("inf"))


def test_abandoned_calls_are_capped() -> None:
    from assay.systems import usercode

    gate = usercode.threading.Event()
    before = usercode.abandoned_calls()
    try:
        for _ in range(usercode.MAX_ABANDONED - before):
            with pytest.raises(usercode.UserCodeTimeout):
                usercode.call_bounded(gate.wait, timeout=0.01, what="f")
        with pytest.raises(usercode.UserCodeFailed, match="still running"):
            usercode.call_bounded(lambda: 1, timeout=5, what="f")
    finally:
        gate.set()
    deadline = time.monotonic() + 10
    while usercode.abandoned_calls() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert usercode.abandoned_calls() == before
    assert usercode.call_bounded(lambda: 1, timeout=5, what="f") == 1
