"""The model judges as library procedures: one ModelCallOptions, the CLI's answer, the
exit status read from the result (against the local stub model server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from assay.core.errors import UsageError
from assay.procedures.judging import RelevanceOptions, judge_relevance
from assay.procedures.judging_files import JudgingPageOptions, judging_page
from assay.procedures.model_options import ModelCallOptions

DATA = Path(__file__).resolve().parents[1] / "data" / "judges"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def _labels(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [{k: v for k, v in row.items() if k != "date"} for row in rows]


@pytest.mark.parametrize(
    ("field", "value"), [("max_cost", float("nan")), ("max_cost", -1.0), ("max_failed", -1)]
)
def test_model_call_options_are_checked_naming_the_parameter(field: str, value: float) -> None:
    with pytest.raises(UsageError) as caught:
        ModelCallOptions(**{field: value})
    assert caught.value.parameter == field and f"`{field}`" in str(caught.value)


def test_model_call_options_refuse_unknown_fields_and_need_a_model() -> None:
    with pytest.raises(ValidationError):
        ModelCallOptions(modle="stub")  # type: ignore[call-arg]
    with pytest.raises(UsageError, match="`model`"):
        ModelCallOptions().open_client()


def test_judge_relevance_gives_what_judge_llm_gives(model_toml: Path, tmp_path: Path) -> None:
    proc = assay(
        "judge", "llm", str(DATA / "pool.jsonl"), "--corpus", str(DATA / "docs.jsonl"),
        "--model", "stub", "--config", str(model_toml), "--no-cache", "--rationale",
        "--scale-max", "2", "-o", "cli.jsonl", "-o", "cli.json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    calls = ModelCallOptions(model="stub", config=model_toml, no_cache=True)
    options = RelevanceOptions(rationale=True, scale_max=2)
    job = judge_relevance(
        DATA / "pool.jsonl", DATA / "docs.jsonl", tmp_path / "lib.jsonl", calls=calls,
        options=options,
    )  # fmt: skip
    cli = json.loads((tmp_path / "cli.json").read_text())
    assert _labels(tmp_path / "lib.jsonl") == _labels(tmp_path / "cli.jsonl")
    assert (job.labels_written, job.scale_max) == (cli["labels_written"], cli["scale_max"])
    assert job.summary["scored"] == cli["summary"]["scored"] == 7
    assert job.exit_code() == 0 and job.failed_runs() == [("judge llm --model stub", [])]


def test_failed_calls_are_counted_by_the_result(model_toml: Path, tmp_path: Path) -> None:
    """One pair's call always fails (HTTP 500): the result names it; max_failed decides."""
    toml = tmp_path / "assay.toml"
    stub_url = next(
        line for line in model_toml.read_text().splitlines() if line.startswith("base_url")
    )
    toml.write_text(f'[models.once]\n{stub_url}\nmodel = "stub-small"\nretries = 0\n')
    (tmp_path / "docs.jsonl").write_text(
        '{"id": "d1", "text": "unemployment rate ERROR500"}\n'
        '{"id": "d2", "text": "unemployment rate monthly"}\n'
    )
    (tmp_path / "pool.jsonl").write_text(
        '{"query_id": "q1", "query": "unemployment rate", "doc_id": "d1"}\n'
        '{"query_id": "q1", "query": "unemployment rate", "doc_id": "d2"}\n'
    )
    calls = ModelCallOptions(model="once", config=toml, no_cache=True)
    job = judge_relevance(tmp_path / "pool.jsonl", tmp_path / "docs.jsonl", None, calls=calls)
    [(who, failed)] = job.failed_runs()
    assert who == "judge llm --model once" and len(failed) == 1 and failed[0].startswith("q1/d1")
    assert job.exit_code() == 0 and job.labels_written == 1  # one pair was graded
    args = ["judge", "llm", "pool.jsonl", "--corpus", "docs.jsonl", "--model", "once"]
    args += ["--no-cache", "-o", "labels.jsonl"]
    refused = assay(*args, cwd=tmp_path)
    assert refused.returncode == 1
    assert "failed model calls: judge llm --model once: 1 failed model calls" in refused.stderr
    assert assay(*args, "--max-failed", "1", cwd=tmp_path).returncode == 0


def test_judging_page_options_split_names_and_check_the_port(tmp_path: Path) -> None:
    options = JudgingPageOptions(assessors="ann, bob,", adjudicators="carl")
    assert (options.assessors, options.adjudicators) == (["ann", "bob"], ["carl"])
    with pytest.raises(UsageError, match="`port` must be between 1 and 65535"):
        judging_page(DATA / "pool.jsonl", str(tmp_path / "s.db"), JudgingPageOptions(port=0))
    assert not (tmp_path / "s.db").exists()
