"""One tag rule: a value lands in the same groups in judgments, answers, compare and gate."""

from __future__ import annotations

import math

import pytest

from assay.answers.score import _group
from assay.core.tags import NO_TAG, TAG_SEPARATOR, group_by_tags, split_tags
from assay.judgments.models import JudgmentSet
from assay.procedures.gating import _slices

VALUES = {
    "q1": "easy; numbers",
    "q2": "numbers",
    "q3": None,
    "q4": " ; ",
    "q5": "easy;easy",
    "q6": "",
}
EXPECTED = {"easy": ["q1", "q5"], "numbers": ["q1", "q2"], NO_TAG: ["q3", "q4", "q6"]}


@pytest.mark.parametrize(
    ("value", "tags"),
    [
        ("a;b", ["a", "b"]),
        (" a ; b ;", ["a", "b"]),
        ("b;a;b", ["b", "a"]),
        (None, [NO_TAG]),
        (math.nan, [NO_TAG]),
        ("", [NO_TAG]),
        (";;", [NO_TAG]),
        (3, ["3"]),
    ],
)
def test_split_tags(value: object, tags: list[str]) -> None:
    assert split_tags(value) == tags
    assert TAG_SEPARATOR == ";"


def test_group_by_tags_keeps_first_seen_order() -> None:
    assert group_by_tags(VALUES.items()) == EXPECTED


def test_judgment_groups_use_the_rule() -> None:
    queries = [{"query_id": q, "text": q, "topic": v} for q, v in VALUES.items()]
    js = JudgmentSet.from_records(queries, {q: {"d1": 1} for q in VALUES})
    assert {k: sorted(v) for k, v in js.groups("topic").items()} == EXPECTED


def test_answer_groups_use_the_rule() -> None:
    rows = [{"id": q, "metadata": {"type": v}} for q, v in VALUES.items()]
    got = {tag: [r["id"] for r in members] for tag, members in _group(rows, "type").items()}
    assert got == EXPECTED


def test_gate_slices_use_the_rule() -> None:
    rows = {q: {"topic": v} for q, v in VALUES.items()}
    assert _slices(rows, "topic", list(VALUES)) == EXPECTED
