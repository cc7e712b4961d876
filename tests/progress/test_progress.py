"""assay.core.progress: a bar on a terminal, lines with counts and rate on a pipe, or off."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core import progress as prog

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


@pytest.fixture(autouse=True)
def _loud(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ASSAY_QUIET", raising=False)
    prog.set_quiet(False)
    yield
    prog.set_quiet(False)


def test_pipe_gets_lines_with_counts_share_and_rate() -> None:
    out = Pipe()
    with prog.progress("indexing", total=4, unit="docs", stream=out, interval=0) as tick:
        for _ in range(4):
            tick()
    lines = out.getvalue().splitlines()
    assert len(lines) == 5  # one per tick (interval 0) and the closing line
    left = r", about \d+ (s|min) left"  # the time left at the mean rate so far
    assert re.fullmatch(rf"indexing: 1/4 docs \(25%\), [\d,.]+ docs/s{left}", lines[0])
    assert re.fullmatch(r"indexing: 4/4 docs \(100%\) in [\d.]+ s, [\d,.]+ docs/s", lines[-1])


def test_time_left_is_the_rest_at_the_mean_rate() -> None:
    assert prog._left(100, 25, 5.0) == ", about 15 s left"
    assert prog._left(1000, 100, 1.0) == ", about 15 min left"
    assert prog._left(None, 3, 1.0) == prog._left(10, 10, 1.0) == prog._left(10, 0, 0.0) == ""


def test_short_work_on_a_pipe_prints_nothing() -> None:
    out = Pipe()
    with prog.progress("searching", total=3, unit="queries", stream=out) as tick:
        tick(3)
    assert out.getvalue() == ""  # under the interval: no line at all


def test_quiet_and_disabled_print_nothing_but_still_count(monkeypatch) -> None:
    seen: list[int] = []
    out = Pipe()
    prog.set_quiet(True)
    with prog.progress("x", total=2, stream=out, interval=0, on_advance=seen.append) as tick:
        tick()
        tick(1)
    prog.set_quiet(False)
    monkeypatch.setenv("ASSAY_QUIET", "1")
    assert prog.is_quiet()
    monkeypatch.delenv("ASSAY_QUIET")
    with prog.progress("x", total=2, stream=out, interval=0, enabled=False) as tick:
        tick()
    assert out.getvalue() == "" and seen == [1, 1]


def test_unknown_total_reports_a_count() -> None:
    out = Pipe()
    with prog.progress("steps", stream=out, interval=0) as tick:
        tick(7)
    assert out.getvalue().startswith("steps: 7 items, ")


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("quiet", [False, True])
def test_cli_on_a_pipe_writes_progress_lines_to_stderr_only(
    quiet: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    env = {**os.environ, "ASSAY_PROGRESS_INTERVAL": "0"}
    args = ["evaluate", str(EXAMPLE / "questions.csv"), "--system", "keyword"]
    args += ["--config", str(EXAMPLE / "assay.toml"), "--no-record", "--no-cache", "-f", "json"]
    proc = _run(*args, *(["--quiet"] if quiet else []), env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("{")  # stdout holds the result only
    lines = [ln for ln in proc.stderr.splitlines() if "queries/s" in ln]
    assert bool(lines) is not quiet
    if lines:
        assert re.search(r"keyword: \d+/15 queries \(\d+%\)", lines[0])


def test_runner_reports_progress_to_a_callback() -> None:
    from assay.judgments.load import load_judgments
    from assay.systems.config import build_system
    from assay.systems.runner import run_system

    js = load_judgments(EXAMPLE / "questions.csv")
    system = build_system("keyword", config_path=EXAMPLE / "assay.toml")
    seen: list[int] = []
    outcome = run_system(system, js, 10, progress=False, on_progress=seen.append)
    assert sum(seen) == outcome.queries == 15
