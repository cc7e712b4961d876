"""`assay judge claims` and `assay judge answers` against the local stub model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assay.answers.load import load_cases

DATA = Path(__file__).resolve().parents[1] / "data" / "judges"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_claims_fill_missing_support_never_a_persons(model_toml: Path, tmp_path: Path) -> None:
    proc = assay(
        "judge", "claims", str(DATA / "cases.jsonl"), "--corpus", str(DATA / "docs.jsonl"),
        "--model", "stub", "--config", str(model_toml), "-o", "filled.jsonl", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    cases = {c["case_id"]: c for c in map(json.loads, (tmp_path / "filled.jsonl").open())}
    assert cases["c1"]["support"]["0"] == {
        "judgments": {"d1": True},
        "judged_by": "model:stub-small",
    }
    assert cases["c2"]["support"]["0"]["judgments"] == {"d4": False}
    assert cases["c3"]["support"]["0"] == {
        "judgments": {"d1": True, "d2": None},
        "judged_by": "person",
    }
    assert "support" not in cases["c4"]  # the grader refused: unscored, nothing filled
    assert result["filled"] == 2
    assert result["left_for_people"] == ["c3/claim 0: d2 (judged by a person)"]
    assert [u["id"] for u in result["unscored"]] == ["c4/claim 0/d7"]
    # the filled cases load and score, the model's judgments counted by judge
    keep = tmp_path / "scorable.jsonl"
    keep.write_text(
        "".join(json.dumps(cases[c]) + "\n" for c in ("c1", "c2", "c5")), encoding="utf-8"
    )
    loaded = load_cases(keep)
    assert [s.judged_by for s in loaded.cases[0].support] == ["model:stub-small"]
    scored = assay("answers", str(keep), "--format", "json", cwd=tmp_path)
    assert scored.returncode in (0, 1), scored.stderr
    assert json.loads(scored.stdout)["judged_by"] == {"model:stub-small": 2}


def test_answers_rubric_and_model_graded_hallucination_rate(
    model_toml: Path, tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.txt"
    rubric.write_text("Check series, period and caveats. Reply in JSON.", encoding="utf-8")
    proc = assay(
        "judge", "answers", str(DATA / "cases.jsonl"), "--model", "stub", "--config",
        str(model_toml), "--rubric", str(rubric), "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["graded_by"] == "model:stub-small"
    assert out["run"]["rubric_version"].startswith("rubric.txt/")
    per = {r["case_id"]: r for r in out["per_case"]}
    assert set(per) == {"c1", "c2", "c3"}  # c4 refused (unscored), c5 declined (not graded)
    assert per["c2"]["unsupported_claims"] == 1 and per["c1"]["unsupported_claims"] == 0
    assert out["rates"]["hallucination_rate"] == 1 / 3
    assert [u["id"] for u in out["unscored"]] == ["c4"]
    text = assay(
        "judge", "answers", str(DATA / "cases.jsonl"), "--model", "stub", "--config",
        str(model_toml), cwd=tmp_path,
    )  # fmt: skip
    assert "hallucination rate (model-graded): 0.333" in text.stdout
