"""One run-validation rule: the same fault gives the same message through every door.

The doors: a TREC file (fast columnar path and line-by-line path), a JSONL
file, :meth:`Run.from_dict` and the result lists of a system under test.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from assay.core.errors import InputError, UsageError
from assay.judgments.models import JudgmentSet
from assay.runs.checks import RankingCheck
from assay.runs.io import load_run
from assay.runs.models import Run
from assay.systems.base import FunctionSystem, Hit
from assay.systems.runner import run_system


def _file_messages(path: Path) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_run(path)
    return [p.message for p in exc.value.problems]


def _dict_message(ranking: dict) -> str:
    with pytest.raises(UsageError) as exc:
        Run.from_dict(ranking, name="r")
    return str(exc.value)


def _system_message(hits: list[Hit]) -> str:
    js = JudgmentSet.from_records([{"query_id": "q1", "text": "x"}], {"q1": {"d1": 1}})
    outcome = run_system(FunctionSystem(lambda q, k: hits), js, retries=0, progress=False)
    return outcome.failures[0].error


def test_duplicate_doc(tmp_path: Path) -> None:
    message = "duplicate doc_id 'd1' for query 'q1'"
    fast = tmp_path / "fast.trec"
    fast.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n")
    slow = tmp_path / "slow.trec"  # a bad line elsewhere sends it down the line checker
    slow.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\nq2 Q0 d1\n")
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text('{"query_id": "q1", "results": ["d1", "d1"]}\n')
    assert _file_messages(fast) == [message + " (first seen on line 1)"]
    assert message + " (first seen on line 1)" in _file_messages(slow)
    assert _file_messages(jsonl) == [message]
    assert message in _dict_message({"q1": ["d1", "d1"]})
    assert _system_message([Hit("d1", None), Hit("d1", None)]) == "duplicate doc_id 'd1'"


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_non_finite_score(tmp_path: Path, bad: float) -> None:
    message = f"score of 'd2' is {bad}"
    trec = tmp_path / "run.trec"
    trec.write_text(f"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 {bad} t\n")
    slow = tmp_path / "slow.trec"
    slow.write_text(f"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 {bad} t\nq2 Q0 d1\n")
    assert _file_messages(trec) == [message]
    assert message in _file_messages(slow)
    assert message in _dict_message({"q1": [("d1", 2.0), ("d2", bad)]})
    assert _system_message([Hit("d1", 2.0), Hit("d2", bad)]) == message


def test_jsonl_non_finite_score(tmp_path: Path) -> None:
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text('{"query_id": "q1", "results": [{"doc_id": "d2", "score": Infinity}]}\n')
    assert _file_messages(jsonl) == ["score of 'd2' is inf"]


def test_all_or_none_scored(tmp_path: Path) -> None:
    message = "some results have a score and some do not"
    assert message in _dict_message({"q1": [("d1", 1.0), "d2"]})
    assert message in _dict_message({"q1": [("d1", 1.0)], "q2": ["d2"]})
    assert _system_message([Hit("d1", 1.0), Hit("d2", None)]) == message
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text(
        '{"query_id": "q1", "results": [{"doc_id": "d1", "score": 1}]}\n'
        '{"query_id": "q2", "results": ["d2"]}\n'
    )
    assert _file_messages(jsonl) == ["line 1 gives scores but line 2 does not"]


def test_check_remembers_only_good_results() -> None:
    check = RankingCheck()
    assert check.add("q", "a", math.nan) is not None
    assert check.add("q", "a", 1.0) is None  # the bad one was not kept
    assert check.add("q", "a", 2.0) is not None
    assert check.add("q2", "a", 1.0) is None  # another query may list it
    assert check.has_scores


def test_result_shapes_and_missing_doc_read_alike() -> None:
    from assay.systems.base import SystemError_, coerce_hits

    items = ["a", ("b", 2.0), ["c"], {"doc_id": "d", "score": 1.0}, {"id": "e"}]
    run = Run.from_dict({"q1": ["a", ("b", None), ["c"], {"id": "e"}]})
    assert [d for d, _ in run.to_dict(ties="given")["q1"]] == ["a", "b", "c", "e"]
    hits = coerce_hits(items)
    assert [(h.doc_id, h.score) for h in hits] == [
        ("a", None),
        ("b", 2.0),
        ("c", None),
        ("d", 1.0),
        ("e", None),
    ]
    message = "result {'score': 1.0} has no doc_id"
    assert message in _dict_message({"q1": [{"score": 1.0}]})
    with pytest.raises(SystemError_, match="has no doc_id") as exc:
        coerce_hits([{"score": 1.0}])
    assert str(exc.value) == message
