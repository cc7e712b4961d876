"""Counts in words agree with their number."""

from __future__ import annotations

import pytest

from assay.core.words import count, plural


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (1, "query", "1 query"),
        (2, "query", "2 queries"),
        (0, "run query", "0 run queries"),
        (1, "paired query", "1 paired query"),
        (3, "case", "3 cases"),
        (1, "file", "1 file"),
    ],
)
def test_count(n: int, noun: str, expected: str) -> None:
    assert count(n, noun) == expected


def test_irregular_and_given_plurals() -> None:
    assert plural(2, "cutoff falls", "cutoffs fall") == "cutoffs fall"
    assert plural(1, "cutoff falls", "cutoffs fall") == "cutoff falls"
