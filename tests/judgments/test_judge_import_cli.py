"""``assay judge import``: a graded CSV with other column names becomes JSONL qrels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from assay.judgments import load_judgments


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=os.environ | {"ASSAY_RECORD": "0"},
    )


def test_import_with_columns(tmp_path: Path) -> None:
    (tmp_path / "terms.csv").write_text("search_term,sku,score\nlamp,a,2\nlamp,b,0\nsofa,c,1\n")
    out = _cli(
        "judge", "import", "terms.csv", "--columns", "query=search_term,doc_id=sku,grade=score",
        "-o", "j.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    js = load_judgments(tmp_path / "j.jsonl")
    assert js.format == "jsonl" and js.qrels_dict() == {"lamp": {"a": 2, "b": 0}, "sofa": {"c": 1}}
    assert load_judgments(tmp_path / "terms.csv", "graded-csv", columns={
        "query": "search_term", "doc_id": "sku", "grade": "score"
    }).version == js.version  # fmt: skip


def test_import_bad_columns_and_missing_column_exit_2(tmp_path: Path) -> None:
    (tmp_path / "terms.csv").write_text("search_term,sku,score\nlamp,a,2\n")
    bad = _cli("judge", "import", "terms.csv", "--columns", "sku", "-o", "j.jsonl", cwd=tmp_path)
    assert bad.returncode == 2 and "write ROLE=COLUMN pairs" in bad.stderr
    missing = _cli(
        "judge", "import", "terms.csv", "--columns", "query=search_term", "-o", "j.jsonl",
        cwd=tmp_path,
    )  # fmt: skip
    assert missing.returncode == 2
    assert "terms.csv:1: [doc_id] no doc_id column" in missing.stderr
    assert "Traceback" not in missing.stderr and not (tmp_path / "j.jsonl").exists()
