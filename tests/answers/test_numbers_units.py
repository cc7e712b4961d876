"""Numbers in answers: units (per cent vs points), denominators, rounding, compounds."""

from __future__ import annotations

import pytest

from assay.answers.models import ExpectedValue
from assay.answers.numbers import extract_numbers, matches


def _one(text: str, language: str = "en"):
    (number,) = [n for n in extract_numbers(text, language) if n.role == "value"]
    return number


@pytest.mark.parametrize(
    ("text", "unit", "ok"),
    [
        ("5.1 percentage points", "%", False),
        ("5.1%", "percentage points", False),
        ("5.1 percentage points", "percentage points", True),
        ("5.1 pp", "pp", True),
        ("5.1%", "%", True),
        ("5,1 points de pourcentage", "%", False),
    ],
)
def test_percent_and_percentage_points_differ(text: str, unit: str, ok: bool) -> None:
    lang = "fr" if "pourcentage" in text else "en"
    assert matches(_one(text, lang), ExpectedValue(value=5.1, unit=unit)) is ok


@pytest.mark.parametrize(
    ("text", "unit", "ok"),
    [
        ("38.2 per 100", "per 1,000", False),
        ("38.2 per 1,000", "per 1,000", True),
        ("38.2 per 1,000 live births", "per 1000 live births", True),
        ("38.2", "per 1,000", False),  # the expected value names a denominator: say it
        ("38.2 per 100", None, True),  # no denominator expected: not compared
    ],
)
def test_denominators_are_compared_when_expected(text: str, unit: str | None, ok: bool) -> None:
    assert matches(_one(text), ExpectedValue(value=38.2, unit=unit)) is ok


@pytest.mark.parametrize(
    ("text", "value", "tolerance", "ok"),
    [
        ("8", 7.63, 0.0, False),
        ("0%", 0.4, 0.0, False),
        ("0%", 0.0, 0.0, True),
        ("7.6", 7.63, 0.0, True),
        ("8", 7.63, 0.4, True),
        ("3 million", 3_000_000, 0.0, True),
        ("3 million", 2_960_000, 0.0, False),
        ("0.40", 0.4049, 0.0, True),
    ],
)
def test_rounding_needs_two_significant_digits(
    text: str, value: float, tolerance: float, ok: bool
) -> None:
    assert matches(_one(text), ExpectedValue(value=value, tolerance=tolerance)) is ok


def test_a_compound_word_splits_space_grouped_digits() -> None:
    found = [n.value for n in extract_numbers("7 100-bed hospitals", "en")]
    assert found == [7, 100]
    assert [n.value for n in extract_numbers("7 100 beds", "fr")] == [7100]


def test_extraction_of_a_long_answer_is_complete() -> None:
    text = "In 2022, 7.6% were hungry; 38 per 1,000 births. " * 20_000  # about 1 MB
    found = extract_numbers(text, "en")
    assert len(found) == 4 * 20_000
    assert found[-2].per == 1000
