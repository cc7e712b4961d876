"""Provenance: versions, time and the user's git state, safe without git."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from assay.core.environment import environment, git_state

GIT = shutil.which("git")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_environment_fields(tmp_path: Path) -> None:
    from assay import __version__

    env = environment(tmp_path)
    assert env["assay_version"] == __version__
    assert env["python"] == platform.python_version()
    assert env["time"].endswith("+00:00")
    assert env["git_commit"] is None and env["git_dirty"] is None  # not a work tree


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_git_commit_and_dirty_flag(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "commit", "-q", "-m", "first")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert git_state(tmp_path) == {"git_commit": head, "git_dirty": False}
    (tmp_path / "untracked.txt").write_text("x\n")
    assert git_state(tmp_path)["git_dirty"] is False  # untracked files do not count
    (tmp_path / "a.txt").write_text("two\n")
    assert git_state(tmp_path) == {"git_commit": head, "git_dirty": True}


def test_git_absent_is_safe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git executable on PATH
    env = environment(tmp_path)
    assert env["git_commit"] is None and env["git_dirty"] is None


def test_evaluate_records_provenance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.judgments.models import JudgmentSet
    from assay.procedures.evaluation import evaluate

    monkeypatch.chdir(tmp_path)
    js = JudgmentSet.from_records([{"query_id": "q1", "text": "t"}], {"q1": {"d1": 1}})
    result = evaluate(js, {"q1": ["d1"]}, ["RR"])
    assert result.environment["python"] == platform.python_version()
    assert "git_commit" in result.environment
