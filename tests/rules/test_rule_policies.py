"""One place for the scoring policies: allowed values, their sentences, the check."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from assay.core.errors import UsageError
from assay.core.policies import (
    MISSING,
    MISSING_POLICIES,
    TIE_POLICIES,
    TIES,
    check_policies,
    describe,
)
from assay.judgments.models import JudgmentSet
from assay.procedures.evaluation import evaluate
from assay.procedures.options import ScoringOptions
from assay.report.evaluation import header_lines
from assay.results.models import Policy


def _evaluate(**kwargs: str) -> Any:
    """``evaluate`` on one query, whichever order its first two parameters take."""
    js = JudgmentSet.from_records([{"query_id": "q1", "text": "a"}], {"q1": {"d1": 1}})
    first = next(iter(inspect.signature(evaluate).parameters))
    args = (js, {"q1": ["d1"]}) if first == "judgments" else ({"q1": ["d1"]}, js)
    return evaluate(*args, options=ScoringOptions(**kwargs))  # type: ignore[arg-type]


def test_values_are_the_result_model_values() -> None:
    assert MISSING_POLICIES == ("zero", "skip") and TIE_POLICIES == ("score", "given")
    for missing in MISSING_POLICIES:
        for ties in TIE_POLICIES:
            Policy(missing=missing, ties=ties)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"missing": "drop"}, "`missing` must be one of zero, skip; got 'drop'"),
        ({"ties": "random"}, "`ties` must be one of score, given; got 'random'"),
    ],
)
def test_the_check_names_the_parameter(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as direct:
        check_policies(**kwargs)
    with pytest.raises(UsageError) as library:
        _evaluate(**kwargs)
    assert str(direct.value) == str(library.value) == message


@pytest.mark.parametrize("missing", MISSING_POLICIES)
@pytest.mark.parametrize("ties", TIE_POLICIES)
def test_every_report_prints_the_policy_sentence(missing: str, ties: str) -> None:
    result = _evaluate(missing=missing, ties=ties)
    line = describe(missing, ties)
    assert line == f"{MISSING[missing]}; {TIES[ties]}"
    header = header_lines(result)
    assert any(MISSING[missing] in text for text in header)
    assert any(TIES[ties] in text for text in header)
