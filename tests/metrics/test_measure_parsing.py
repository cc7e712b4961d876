"""Measure names, aliases and errors."""

from __future__ import annotations

import pytest

from assay.core.errors import UsageError
from assay.metrics.measures import Measure, parse_measure, parse_measures


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nDCG@10", Measure("nDCG", 10)),
        ("ndcg_cut_10", Measure("nDCG", 10)),
        ("MRR@10", Measure("RR", 10)),
        ("MAP", Measure("AP")),
        ("map_cut.100", Measure("AP", 100)),
        ("Recall@5", Measure("R", 5)),
        ("P(rel=2)@5", Measure("P", 5, 2)),
        ("nDCG(gain=exp)@10", Measure("nDCG", 10, gain="exp")),
        ("success_1", Measure("Success", 1)),
        ("num_rel_ret", Measure("NumRelRet")),
        ("Judged@10", Measure("Judged", 10)),
    ],
)
def test_parse(text: str, expected: Measure) -> None:
    m = parse_measure(text)
    assert m == expected
    assert parse_measure(m.name) == m


@pytest.mark.parametrize(
    "text", ["P", "P@0", "P@x", "nDCG@-1", "foo@10", "Rprec@5", "nDCG(rel=2)", "AP(gain=exp)"]
)
def test_bad_names(text: str) -> None:
    with pytest.raises(UsageError):
        parse_measure(text)


def test_parse_measures_dedupes_and_defaults() -> None:
    assert parse_measures(["AP", "map", "P@5"]) == [Measure("AP"), Measure("P", 5)]
    assert len(parse_measures(None)) == 4
