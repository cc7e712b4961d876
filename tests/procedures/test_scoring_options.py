"""ScoringOptions: one object for the scoring keywords every procedure repeats."""

from __future__ import annotations

import inspect

import pytest

import assay
from assay.core.errors import UsageError
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
def test_options_score_as_trec_eval_policies(missing: str, ties: str) -> None:
    opts = ScoringOptions(missing=missing, ties=ties)
    positional = assay.evaluate(_js(), RUN, ["RR", "nDCG@10"], (), opts)
    by_name = assay.evaluate(_js(), RUN, ["RR", "nDCG@10"], options=opts)
    assert positional.aggregate == by_name.aggregate
    assert by_name.policy.missing == missing and by_name.policy.ties == ties
    # q6 is judged but absent from the run: scored 0 (zero) or left out (skip)
    assert len(by_name.per_query) == (6 if missing == "zero" else 5)


PROCEDURES = (assay.evaluate, assay.compare, assay.gate, assay.verify_suite)


def test_every_procedure_takes_a_handful_of_parameters_and_options() -> None:
    for procedure in PROCEDURES:
        parameters = inspect.signature(procedure).parameters
        assert len(parameters) <= 8, procedure.__name__
        assert parameters["options"].default is None
        assert "ScoringOptions" in str(parameters["options"].annotation)


def test_an_option_object_of_another_kind_is_refused_naming_the_parameter() -> None:
    with pytest.raises(UsageError, match="`options` must be a ScoringOptions") as info:
        assay.evaluate(_js(), RUN, ["RR"], options={"missing": "skip"})  # type: ignore[arg-type]
    assert info.value.parameter == "options"
    with pytest.raises(UsageError, match="`rule` must be a GateOptions") as info:
        assay.gate(_js(), RUN, RUN, rule=ScoringOptions())  # type: ignore[arg-type]
    assert info.value.parameter == "rule"


def test_every_option_model_field_is_described() -> None:
    models = (
        assay.ScoringOptions,
        assay.SourceOptions,
        assay.EvaluationOptions,
        assay.ComparisonOptions,
        assay.GateOptions,
        assay.PairedTestOptions,
    )
    for model in models:
        schema = model.model_json_schema()
        assert all(p.get("description") for p in schema["properties"].values()), model


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
