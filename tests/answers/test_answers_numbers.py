"""The number extractor: real-world formats in English, French and Spanish, and matching."""

from __future__ import annotations

import pytest

from assay.answers.models import ExpectedValue
from assay.answers.numbers import check_numbers, extract_numbers, matches

# (text, language, [(value, percent)] of the numbers that are checked as values)
FORMATS = [
    ("7.6%", "en", [(7.6, True)]),
    ("7,6 %", "fr", [(7.6, True)]),
    ("7,6\u00a0%", "fr", [(7.6, True)]),
    ("1,234.5", "en", [(1234.5, False)]),
    ("1 234,5", "fr", [(1234.5, False)]),
    ("1\u202f234,5", "fr", [(1234.5, False)]),
    ("1.234,5", "es", [(1234.5, False)]),
    ("1,234,567", "en", [(1234567, False)]),
    ("1.234.567", "es", [(1234567, False)]),
    ("12 345 678", "fr", [(12345678, False)]),
    ("1,234", "en", [(1234, False)]),
    ("1,234", "fr", [(1.234, False)]),
    ("1.234", "es", [(1234, False)]),
    ("1.234", "en", [(1.234, False)]),
    ("0,123", None, [(0.123, False)]),
    ("12 million", "en", [(12e6, False)]),
    ("1.2 billion", "en", [(1.2e9, False)]),
    ("USD 3.2 billion", "en", [(3.2e9, False)]),
    ("3.2bn", "en", [(3.2e9, False)]),
    ("$3.2bn", "en", [(3.2e9, False)]),
    ("€12 million", "en", [(12e6, False)]),
    ("2 trillion", "en", [(2e12, False)]),
    ("45 thousand", "en", [(45e3, False)]),
    ("12 millions", "fr", [(12e6, False)]),
    ("1,2 milliard", "fr", [(1.2e9, False)]),
    ("2 billions", "fr", [(2e12, False)]),
    ("12 millones", "es", [(12e6, False)]),
    ("1,5 millones de personas", "es", [(1.5e6, False)]),
    ("3,2 mil millones", "es", [(3.2e9, False)]),
    ("12 mil", "es", [(12e3, False)]),
    ("3 per cent", "en", [(3, True)]),
    ("7.6 percent", "en", [(7.6, True)]),
    ("7,6 pour cent", "fr", [(7.6, True)]),
    ("7,6 por ciento", "es", [(7.6, True)]),
    ("0.4 percentage points", "en", [(0.4, False)]),  # points, a unit of their own
    ("-0.4", "en", [(-0.4, False)]),
    ("−0.4", "en", [(-0.4, False)]),
    ("(−2.1%)", "en", [(-2.1, True)]),
    ("+1.5", "en", [(1.5, False)]),
    ("0.5", "en", [(0.5, False)]),
    (".5", "en", [(0.5, False)]),
    ("5–7 %", "en", [(5, False), (7, True)]),
    ("5-7%", "en", [(5, False), (7, True)]),
    ("in 2023", "en", []),
    ("2019–2023", "en", []),
    ("2019 - 2023", "en", []),
    ("en 2023, 7,6 %", "fr", [(7.6, True)]),
    ("1/2", "en", []),
    ("2023-05-01", "en", []),
    ("at 10:30", "en", []),
    ("the 1st quarter", "en", []),
    ("le 2e trimestre", "fr", []),
    ("under-5 mortality", "en", []),
    ("COVID-19", "en", []),
    ("HE_U5_MORT_RATE", None, []),
    ("version 1.2.3", "en", []),
    ("38 per 1,000 live births", "en", [(38, False)]),
    ("38 pour 1 000 naissances", "fr", [(38, False)]),
    ("38 por cada 1.000 nacidos vivos", "es", [(38, False)]),
    ("It was 7.6.", "en", [(7.6, False)]),
    ("three years", "en", []),
    ("12.5k", "en", [(12_500, False)]),
    ("12.5K", "en", [(12_500, False)]),
    ("10k runners", "en", [(10_000, False)]),
    ("$3M", "en", [(3e6, False)]),
    ("$2B", "en", [(2e9, False)]),
    ("3.2 BN", "en", [(3.2e9, False)]),
    ("12 m", "en", [(12, False)]),  # metres: lower-case m is not a scale
    ("5km", "en", [(5, False)]),
    ("12 k", "en", [(12, False)]),  # a one-letter suffix must touch the number
    ("1.2e3", "en", [(1200, False)]),
    ("3E-4", "en", [(3e-4, False)]),
    ("1,2e3", "fr", [(1200, False)]),
    ("1.234e3", "es", [(1234, False)]),  # a mantissa's separator is always decimal
    ("-1.5e3", "en", [(-1500, False)]),
    ("2.5e-2%", "en", [(0.025, True)]),
]


@pytest.mark.parametrize(("text", "language", "expected"), FORMATS)
def test_extracts_format(text: str, language: str | None, expected: list) -> None:
    found = [n for n in extract_numbers(text, language) if n.role == "value"]
    assert [(n.value, n.percent) for n in found] == [(pytest.approx(v), p) for v, p in expected]


def test_table_covers_forty_formats() -> None:
    assert len(FORMATS) >= 40


def test_years_and_denominators_are_found_but_not_values() -> None:
    found = extract_numbers("In 2023, 38 per 1,000 live births", "en")
    assert [(n.text, n.role) for n in found] == [
        ("2023", "year"),
        ("38", "value"),
        ("1,000", "denominator"),
    ]


def test_shown_precision_and_scale_are_kept() -> None:
    (n,) = extract_numbers("12.3 million", "en")
    assert (n.shown, n.decimals, n.scale) == (12.3, 1, 1e6)


@pytest.mark.parametrize(
    ("text", "shown", "decimals", "scale", "written"),
    [
        ("it rose to 12.5k.", 12.5, 1, 1e3, "12.5k"),
        ("about 1.2e3 people", 1.2, 1, 1e3, "1.2e3"),
        ("p = 3E-4", 3.0, 0, 1e-4, "3E-4"),
    ],
)
def test_suffix_and_exponent_are_the_scale(
    text: str, shown: float, decimals: int, scale: float, written: str
) -> None:
    (n,) = extract_numbers(text, "en")
    assert (n.shown, n.decimals, n.text) == (shown, decimals, written)
    assert n.scale == pytest.approx(scale)


@pytest.mark.parametrize(
    ("text", "value", "tolerance", "unit", "ok"),
    [
        ("7.6", 7.63, 0.0, "%", True),  # rounding to the shown precision (seed 003)
        ("7.63", 7.63, 0.0, "%", True),
        ("7.7", 7.63, 0.0, "%", False),
        ("7.7", 7.63, 0.1, "%", True),  # within tolerance
        ("8%", 7.63, 0.0, "%", False),  # one significant digit is too coarse to round
        ("8%", 7.63, 0.5, "%", True),  # unless the tolerance allows it
        ("7.5", 7.63, 0.0, None, False),
        ("12 million", 12_345_678, 0.0, "people", True),
        ("12.3 million", 12_345_678, 0.0, "people", True),
        ("12.4 million", 12_345_678, 0.0, "people", False),
        ("12 million", 12, 0.0, "million", True),  # unit names the scale
        ("7.6%", 7.6, 0.0, "people", False),  # a percentage is not a count
        ("-0.4", -0.4, 0.0, None, True),
        ("0.4", -0.4, 0.0, None, False),
        ("12.5k", 12_480, 0.0, None, True),  # 12.48 thousand rounds to 12.5
        ("12.5k", 12.5, 0.0, None, False),
        ("1.2e3", 1234, 0.0, None, True),
        ("1.2e3", 1.2, 0.0, None, False),
        ("3E-4", 0.0003, 0.0, None, True),
        ("3M", 3, 0.0, "M", True),  # unit M names the scale
    ],
)
def test_matching(text: str, value: float, tolerance: float, unit: str | None, ok: bool) -> None:
    (number,) = [n for n in extract_numbers(text, "en") if n.role == "value"]
    assert matches(number, ExpectedValue(value=value, tolerance=tolerance, unit=unit)) is ok


def test_unmatched_numbers_are_unverified() -> None:
    numbers = extract_numbers("In 2022, 7.6% were hungry, up from 6.9%.", "en")
    checks = check_numbers(numbers, [ExpectedValue(value=7.63)])
    assert [(c.number.text, c.verified) for c in checks] == [("7.6%", True), ("6.9%", False)]
