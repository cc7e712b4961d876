"""trec_eval's own quicktest, line for line: ``assay trec-eval`` prints the expected files.

Each case is one line of ``QUICKTEST_COMMANDS.txt`` (trec_eval 10.0's Makefile);
the output must equal trec_eval's expected file byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.treceval import trec_eval_lines
from assay.runs.io import load_run

MEAS_PARAMS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "ndcg.1=3,2=9,4=4.5",
    "ndcg_cut.10,20,23.4",
    "success.2,5,20",
]

#: (expected file, qrels, run, -m specs, options)
CASES = [
    ("out.test", "qrels.test", "results.test", [], {}),
    ("out.test", "qrels.test.with-comments", "results.test", [], {}),
    ("out.test", "qrels.test.with-floats", "results.test", [], {}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", [], {}),
    ("out.test.a", "qrels.test", "results.test", ["all_trec"], {}),
    ("out.test.aq", "qrels.test", "results.test", ["all_trec"], {"per_query": True}),
    (
        "out.test.aqc",
        "qrels.test",
        "results.trunc",
        ["all_trec"],
        {"per_query": True, "complete": True},
    ),
    (
        "out.test.aqcM",
        "qrels.test",
        "results.trunc",
        ["all_trec"],
        {"per_query": True, "complete": True, "depth": 100},
    ),
    (
        "out.test.aql",
        "qrels.rel_level",
        "results.test",
        ["all_trec", "relstring.20"],
        {"per_query": True, "rel": 2},
    ),
    ("out.test.meas_params", "qrels.test", "results.test", MEAS_PARAMS, {"per_query": True}),
]


@pytest.fixture(scope="module")
def te(shared_data: Path) -> Path:
    return shared_data / "trec_eval_tests"


@pytest.mark.parametrize(("expected", "qrels", "run", "specs", "options"), CASES)
def test_quicktest_line(te: Path, expected, qrels, run, specs, options) -> None:
    judgments = load_trec_eval_qrels(te / qrels)
    lines = trec_eval_lines(judgments, load_run(te / run), specs, **options)
    assert "\n".join(lines) + "\n" == (te / expected).read_text()


def test_floats_are_read_with_a_warning(te: Path) -> None:
    judgments = load_trec_eval_qrels(te / "qrels.test.with-floats")
    assert any("not whole numbers" in w for w in judgments.warnings)


def test_cli_prints_the_same_bytes(te: Path, tmp_path: Path) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "trec-eval"]
    args = ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"]
    done = subprocess.run(
        [*cmd, *args, str(te / "qrels.rel_level"), str(te / "results.test")],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": src},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (te / "out.test.aql").read_bytes()
