"""Mixed human/model labels: refused by evaluate, library and CLI alike, unless `prefer` says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import assay

ROWS = [
    {"query_id": "q1", "query": "alpha", "doc_id": "d1", "grade": 2, "source": "human"},
    {"query_id": "q1", "query": "alpha", "doc_id": "d1", "grade": 0, "source": "model"},
    {"query_id": "q1", "query": "alpha", "doc_id": "d2", "grade": 1, "source": "model"},
    {"query_id": "q2", "query": "beta", "doc_id": "d3", "grade": 1, "source": "human"},
]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n", encoding="utf-8")
    return labels, run


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_mixed_sources_are_refused_through_both_doors(tmp_path: Path) -> None:
    labels, run = _files(tmp_path)
    with pytest.raises(assay.UsageError, match="several sources"):
        assay.evaluate(labels, run, ["RR"])
    proc = _cli("evaluate", str(labels), str(run), "-m", "RR", "--no-record", cwd=tmp_path)
    assert proc.returncode == 2 and "--prefer" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("prefer", "rr_q1"), [("human", 1.0), ("model", 0.5)])
def test_prefer_decides_and_both_doors_agree(tmp_path: Path, prefer: str, rr_q1: float) -> None:
    labels, run = _files(tmp_path)
    lib = assay.evaluate(labels, run, ["RR"], evaluation=assay.EvaluationOptions(prefer=prefer))
    rows = {r["query_id"]: r["RR"] for r in lib.per_query}
    assert rows["q1"] == pytest.approx(rr_q1)
    proc = _cli(
        "evaluate", str(labels), str(run), "-m", "RR", "--prefer", prefer, "-f", "json",
        "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["aggregate"] == lib.aggregate


def test_reports_count_labels_per_source(tmp_path: Path) -> None:
    labels, run = _files(tmp_path)
    result = assay.evaluate(labels, run, ["RR"], evaluation=assay.EvaluationOptions(prefer="human"))
    assert result.judgments.label_sources == {"human": 2, "model": 1}
    proc = _cli(
        "evaluate", str(labels), str(run), "-m", "RR", "--prefer", "human", "--no-record",
        cwd=tmp_path,
    )  # fmt: skip
    assert "labels     human 2, model 1" in proc.stdout, proc.stdout
