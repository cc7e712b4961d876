"""`assay judge llm` end to end against the local stub model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.retry import RetryPolicy
from assay.judges.graders import RELEVANCE, to_scale
from assay.judges.grading import grade_items
from assay.judges.labels import read_labels
from assay.judges.relevance import Pair, relevance_items
from assay.providers.client import ChatClient
from assay.providers.model_config import get_model

DATA = Path(__file__).resolve().parents[1] / "data" / "judges"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def _llm(tmp_path: Path, toml: Path, pool: str, out: str, *extra: str):
    return assay(
        "judge", "llm", str(DATA / pool), "--corpus", str(DATA / "docs.jsonl"),
        "--model", "stub", "--config", str(toml), "-o", out, *extra, cwd=tmp_path,
    )  # fmt: skip


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_pool_graded_with_source_assessor_and_prompt(model_toml: Path, tmp_path: Path) -> None:
    proc = _llm(tmp_path, model_toml, "pool.jsonl", "model.jsonl", "--rationale")
    assert proc.returncode == 0, proc.stderr
    rows = _lines(tmp_path / "model.jsonl")
    grades = {(r["query_id"], r["doc_id"]): r["grade"] for r in rows}
    assert grades == {
        ("q1", "d1"): 3, ("q1", "d4"): 1, ("q1", "d5"): 0,
        ("q2", "d2"): 3, ("q2", "d3"): 0, ("q3", "d3"): 3, ("q3", "d5"): 0,
    }  # fmt: skip
    first = rows[0]
    assert first["source"] == "model" and first["assessor"] == "stub-small"
    assert first["rubric_version"] == RELEVANCE.rubric_version
    assert first["prompt_hash"] == RELEVANCE.prompt_hash and first["date"]
    assert "query words" in first["rationale"]
    assert "items: 7, scored 7, unscored 0" in proc.stdout
    assert "sk-test-secret-123" not in proc.stdout + proc.stderr
    assert "sk-test-secret-123" not in (tmp_path / "model.jsonl").read_text()
    table = read_labels(tmp_path / "model.jsonl")
    assert table.sources() == {"model": 7}


def test_rerun_is_cached_and_offline_replays(model_toml: Path, tmp_path: Path, stub) -> None:
    assert _llm(tmp_path, model_toml, "pool.jsonl", "a.jsonl").returncode == 0
    before = sum(stub.state.calls.values())
    proc = _llm(tmp_path, model_toml, "pool.jsonl", "b.jsonl", "--offline", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert sum(stub.state.calls.values()) == before
    job = json.loads(proc.stdout)
    assert job["run"]["usage"]["cached"] == 7 and job["run"]["usage"]["spent"] == 0.0
    assert job["run"]["usage"]["cost"] > 0  # what the answers cost when they were made
    assert _lines(tmp_path / "a.jsonl") != [] and [
        {k: v for k, v in r.items() if k != "date"} for r in _lines(tmp_path / "a.jsonl")
    ] == [{k: v for k, v in r.items() if k != "date"} for r in _lines(tmp_path / "b.jsonl")]


def test_offline_miss_exits_2_listing_misses(model_toml: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-cache"
    proc = _llm(
        tmp_path, model_toml, "pool.jsonl", "c.jsonl", "--offline", "--cache-dir", str(empty)
    )
    assert proc.returncode == 2
    assert "7 call(s) are not in the model-call cache" in proc.stderr
    err = proc.stderr
    assert "q1/d1 (sample 1)" in err and err.index("q1/d1") < err.index("q1/d4") < err.index("q3")
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "c.jsonl").exists()


def test_misbehaving_answers_are_unscored_and_listed(model_toml: Path, tmp_path: Path) -> None:
    proc = _llm(tmp_path, model_toml, "pool_faults.jsonl", "f.jsonl", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    job = json.loads(proc.stdout)
    unscored = {u["id"].split("/")[0]: u["reasons"][0] for u in job["unscored"]}
    assert set(unscored) == {"q1", "q2", "q4"}  # malformed, refused, wrong schema
    assert unscored["q1"].startswith("unparsable")
    assert unscored["q2"].startswith("refused")
    assert unscored["q4"].startswith("unparsable: the answer has no 'grade'")
    rows = {r["query_id"]: r for r in _lines(tmp_path / "f.jsonl")}
    assert set(rows) == {"q3", "q5"}  # the 429 was retried and graded
    assert job["summary"]["unscored"] == 3 and job["summary"]["scored"] == 2


def test_samples_majority_and_flip_rate(model_toml: Path, tmp_path: Path) -> None:
    cfg = get_model("stub", model_toml)
    pairs = [Pair("q1", "unemployment rate labour", "d10"), Pair("q2", "food price", "d2")]
    from assay.corpora.load import load_corpus

    items = relevance_items(pairs, load_corpus(DATA / "docs.jsonl"))
    with ChatClient(cfg, policy=RetryPolicy(backoff=0, jitter=0)) as client:
        run = grade_items(items, RELEVANCE, client, samples=3)
    flipping, steady = run.items
    assert flipping.flip and len(set(flipping.samples)) > 1 and len(flipping.samples) == 3
    assert not steady.flip and steady.samples == [2, 2, 2]
    assert run.flip_rate() == pytest.approx(0.5)
    assert run.usage.calls == 6


def test_max_cost_stops_before_the_budget(model_toml: Path, tmp_path: Path) -> None:
    # input 1 USD / Mtok: one call's bound is ~ (400 bytes + 512 * 2) / 1e6 USD.
    proc = _llm(
        tmp_path, model_toml, "pool.jsonl", "m.jsonl", "--max-cost", "0.004", "--no-cache",
        "--format", "json",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    job = json.loads(proc.stdout)
    assert job["run"]["stopped_at_budget"] is True
    assert job["run"]["usage"]["spent"] <= 0.004
    assert 0 < job["summary"]["not_graded"] < 7
    text = _llm(tmp_path, model_toml, "pool.jsonl", "n.jsonl", "--max-cost", "0.004", "--no-cache")
    assert "stopped before passing --max-cost" in text.stdout


def test_judgment_set_is_regraded_onto_its_own_scale(model_toml: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "binary.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d4 0\nq1 0 d5 0\n", encoding="utf-8")
    assert [to_scale(g, 1) for g in range(4)] == [0, 0, 1, 1]
    assert [to_scale(g, 4) for g in range(4)] == [0, 1, 3, 4]
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tmonthly unemployment rate labour force\n", encoding="utf-8")
    from assay.core.errors import UsageError
    from assay.corpora.load import load_corpus
    from assay.judges.relevance import read_pairs, run_relevance_job

    with pytest.raises(UsageError, match="no text to grade"):
        read_pairs(qrels)
    pairs, top = read_pairs(qrels, queries=queries)
    assert top == 1 and [p.doc_id for p in pairs] == ["d1", "d4", "d5"]
    with ChatClient(get_model("stub", model_toml)) as client:
        job = run_relevance_job(
            pairs, load_corpus(DATA / "docs.jsonl"), client, tmp_path / "o.jsonl", set_top=1
        )
    rows = _lines(tmp_path / "o.jsonl")
    assert job.scale_max == 1
    assert [(r["doc_id"], r["model_grade"], r["grade"]) for r in rows] == [
        ("d1", 3, 1), ("d4", 1, 0), ("d5", 0, 0)
    ]  # fmt: skip


def test_text_mode_model_is_parsed(model_toml: Path, tmp_path: Path) -> None:
    proc = assay(
        "judge", "llm", str(DATA / "pool.jsonl"), "--corpus", str(DATA / "docs.jsonl"),
        "--model", "stubtext", "--config", str(model_toml), "-o", "t.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert len(_lines(tmp_path / "t.jsonl")) == 7


def test_unknown_model_is_a_usage_error(model_toml: Path, tmp_path: Path) -> None:
    proc = assay(
        "judge", "llm", str(DATA / "pool.jsonl"), "--corpus", str(DATA / "docs.jsonl"),
        "--model", "nope", "--config", str(model_toml), "-o", "x.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2 and "no model 'nope'" in proc.stderr
