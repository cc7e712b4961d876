"""Export: final grades by rule, every assessor's grade, loadable JSONL and TREC qrels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay import load_judgments
from assay.core.errors import UsageError
from assay.judging.export import export_judgments
from assay.judging.pool import PoolPair
from assay.judging.store import JudgingStore


@pytest.fixture
def graded(tmp_path: Path) -> JudgingStore:
    pairs = [
        PoolPair("q1", "alpha", "d1", {"r": 1}, {"language": "en", "query_class": "fact"}),
        PoolPair("q1", "alpha", "d2", {"r": 2}, {"language": "en", "query_class": "fact"}),
        PoolPair("q1", "alpha", "d3", {"r": 3}, {"language": "en", "query_class": "fact"}),
        PoolPair("q2", "beta", "d4", {"r": 1}),
        PoolPair("q2", "beta", "d5", {"r": 2}),
        PoolPair("q3", "gamma", "d6", {"r": 1}),
    ]
    s = JudgingStore(str(tmp_path / "j.db"))
    s.setup(pairs, ["alice", "bob", "carol"], overlap=3, adjudicators=["dan"])
    ids = s.assigned()["alice"]
    grades = {
        "alice": ["2", "1", "3", "0", "u", "0"],
        "bob": ["2", "2", "1", "u", "u", "0"],
        "carol": ["1", "0", "later", "later", "later", "0"],
    }
    for who, values in grades.items():
        for pid, v in zip(ids, values, strict=True):
            s.act(who, pid, v)
    s.adjudicate("dan", ids[1], "1", "partly")
    return s


def test_jsonl_export_rules_and_loads_back(graded: JudgingStore, tmp_path: Path) -> None:
    out = tmp_path / "human.jsonl"
    summary = export_judgments(graded, out)
    js = load_judgments(out)
    assert summary.version == js.version
    assert js.qrels_dict() == {"q1": {"d1": 2, "d2": 1}, "q2": {"d4": 0}, "q3": {"d6": 0}}
    assert summary.rules == {
        "majority": 2,
        "adjudicated": 1,
        "tie": 1,
        "single": 1,
        "unrateable": 1,
    }
    assert summary.ties == [("q1", "d3")] and summary.no_answer_queries == ["q2", "q3"]
    lines = {x["query_id"]: x for x in map(json.loads, out.read_text().splitlines())}
    q1 = lines["q1"]
    assert (q1["source"], q1["assessor"], q1["language"]) == ("human", "alice;bob;carol", "en")
    d2 = q1["assessments"]["d2"]
    assert d2["rule"] == "adjudicated" and d2["adjudication"]["adjudicator"] == "dan"
    assert [(g["assessor"], g["grade"]) for g in d2["grades"]] == [
        ("alice", 1),
        ("bob", 2),
        ("carol", 0),
    ]
    assert lines["q2"]["no_answer"] is True
    assert js.query("q1").metadata["source"] == "human"
    # the same store exports the same version again (content hash, not time of export)
    assert export_judgments(graded, tmp_path / "again.jsonl").version == summary.version


def test_trec_export_and_cli(graded: JudgingStore, tmp_path: Path) -> None:
    out = tmp_path / "human.qrels"
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "export"]
    proc = subprocess.run(
        [*cmd, "--store", graded.url.removeprefix("sqlite:///"), "-o", str(out), "-f", "trec"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().splitlines() == ["q1 0 d1 2", "q1 0 d2 1", "q2 0 d4 0", "q3 0 d6 0"]
    assert "version sha256:" in proc.stderr and "1 tied pairs" in proc.stderr
    missing = subprocess.run(
        [*cmd, "--store", str(tmp_path / "nope.db"), "-o", str(tmp_path / "x.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and "no such judging store" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_nothing_to_export(tmp_path: Path) -> None:
    s = JudgingStore(str(tmp_path / "j.db"))
    s.setup([PoolPair("q1", "a", "d1", {})], ["alice"], 1)
    with pytest.raises(UsageError, match="no pair has a final grade"):
        export_judgments(s, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_export_onto_the_base_judgments(graded: JudgingStore, tmp_path: Path) -> None:
    from assay.judgments import JudgmentSet

    base = JudgmentSet.from_records(
        [
            {"query_id": "q0", "text": "untouched", "source": "model"},
            {"query_id": "q1", "text": "alpha", "source": "model", "assessor": "gpt"},
            {"query_id": "q2", "text": "beta", "no_answer": True},
        ],
        {"q0": {"x": 1}, "q1": {"d0": 1, "d1": 0}},
    )
    out = tmp_path / "merged.jsonl"
    summary = export_judgments(graded, out, base=base)
    js = load_judgments(out)
    assert js.qrels_dict() == {
        "q0": {"x": 1},
        "q1": {"d0": 1, "d1": 2, "d2": 1},  # the people's d1 replaces the base's 0
        "q2": {"d4": 0},
        "q3": {"d6": 0},
    }
    assert js.query("q1").metadata["source"] == "model"  # the query's own source stays ...
    d1 = json.loads(js.query("q1").metadata["assessments"])["d1"]
    assert d1["source"] == "human" and d1["final"] == 2  # ... the people's pairs say theirs
    assert js.query("q1").metadata["assessor"] == "alice;bob;carol;gpt"
    assert js.query("q0").metadata["source"] == "model"
    assert js.no_answer_ids == ["q2", "q3"]
    assert summary.no_answer_queries == ["q3"]  # q2 was a no-answer query already
    assert summary.version == js.version
