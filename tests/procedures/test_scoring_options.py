"""ScoringOptions: one object for the scoring keywords every procedure repeats."""

from __future__ import annotations

import inspect

import pytest

import assay
from assay.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.procedures.options import ScoringOptions

QUERIES = [{"query_id": f"q{i}", "text": f"query {i}"} for i in range(1, 7)]
QRELS = {f"q{i}": {f"d{i}": 1, f"e{i}": 2} for i in range(1, 7)}
# q6 missing; tied scores so that the tie policy changes the order
RUN = {
    f"q{i}": [{"doc_id": f"d{i}", "score": 1.0}, {"doc_id": f"e{i}", "score": 1.0}]
    for i in range(1, 6)
}


def _js() -> JudgmentSet:
    return JudgmentSet.from_records(QUERIES, QRELS)


@pytest.mark.parametrize(("missing", "ties"), [("zero", "score"), ("skip", "given")])
def test_options_score_as_the_keywords(missing: str, ties: str) -> None:
    by_keywords = assay.evaluate(_js(), RUN, ["RR", "nDCG@10"], missing=missing, ties=ties)
    opts = ScoringOptions(missing=missing, ties=ties)
    by_options = assay.evaluate(_js(), RUN, ["RR", "nDCG@10"], options=opts)
    assert by_options.aggregate == by_keywords.aggregate
    assert by_options.policy == by_keywords.policy
    assert by_options.policies == by_keywords.policies


def test_every_procedure_takes_options() -> None:
    for procedure in (assay.evaluate, assay.compare, assay.gate, assay.verify_suite):
        parameter = inspect.signature(procedure).parameters["options"]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None


def test_a_keyword_beside_options_is_refused() -> None:
    with pytest.raises(UsageError, match="either as a keyword or in `options`") as info:
        assay.evaluate(_js(), RUN, ["RR"], missing="skip", options=ScoringOptions())
    assert info.value.parameter == "missing"


def test_an_option_the_procedure_does_not_take_is_refused() -> None:
    opts = ScoringOptions(ignore_identical_ids=True)
    with pytest.raises(UsageError, match="takes no `ignore_identical_ids`"):
        assay.verify_suite(_js(), RUN, options=opts)


@pytest.mark.parametrize(
    ("values", "parameter"),
    [
        ({"missing": "nope"}, "missing"),
        ({"ties": "x"}, "ties"),
        ({"k": 0}, "k"),
        ({"retries": -1}, "retries"),
    ],
)
def test_bad_options_are_refused_naming_the_parameter(values: dict, parameter: str) -> None:
    with pytest.raises(UsageError) as info:
        ScoringOptions(**values)
    assert info.value.parameter == parameter


def test_every_field_is_described() -> None:
    assert all(f.description for f in ScoringOptions.model_fields.values())
