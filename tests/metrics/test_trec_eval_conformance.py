"""Conformance with trec_eval's own expected outputs (test/out.* of usnistgov/trec_eval).

Every measure trec_eval prints is mapped to an assay measure by the registry's
parser and compared per query and on the summary line at trec_eval's printed 4
decimals, through the library (``compute`` and ``aggregate``: counts sum, the
rest averages over ``num_q``, gm_* take geometric means).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.judgments.load import load_judgments
from assay.judgments.models import JudgmentSet
from assay.metrics.engine import aggregate, compute
from assay.metrics.measures import Measure, parse_measure
from assay.metrics.registry import REGISTRY
from assay.runs.io import load_run


def to_measure(name: str, rel: int = 1) -> Measure | None:
    """Map a printed trec_eval name to an assay Measure with the registry's parser.

    ``None`` for what is not a number per query (runid, relstring).
    """
    if name in ("runid", "relstring") or name.startswith("relstring_"):
        return None
    m = parse_measure(name)
    if rel != 1 and REGISTRY[m.family].takes_rel:
        m = Measure(m.family, m.cutoff, rel, m.gain, m.params)
    return m


def parse_out(path: Path) -> dict[str, dict[str, float]]:
    """``{measure name: {query id or 'all': value}}`` of a trec_eval output file."""
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        name, qid, value = parts
        try:
            out.setdefault(name, {})[qid] = float(value)
        except ValueError:
            continue
    return out


def check(expected: dict, judgments: JudgmentSet, run, *, rel: int = 1, missing: str) -> int:
    """Compare every measure printed, per query and on the summary line; return the count."""
    names = {n: m for n in expected if (m := to_measure(n, rel)) is not None}
    table = compute(judgments, run, list(names.values()), missing=missing)
    compared = 0
    for name, m in names.items():
        values = dict(zip(table.query_ids, table.values[m].tolist(), strict=True))
        for qid, want in expected[name].items():
            if qid == "all":
                continue
            assert round(values[qid], 4) == pytest.approx(want, abs=1e-9), (name, qid)
            compared += 1
        got = aggregate(m, table.values[m])
        assert round(got, 4) == pytest.approx(expected[name]["all"], abs=1e-9), name
        compared += 1
    return compared


@pytest.fixture(scope="module")
def te(shared_data: Path) -> Path:
    return shared_data / "trec_eval_tests"


def test_out_test_aq_all_trec_per_query(te: Path) -> None:
    expected = parse_out(te / "out.test.aq")
    j = load_judgments(te / "qrels.test", format="trec")
    n = check(expected, j, load_run(te / "results.test"), missing="skip")
    assert n > 150


def test_out_test_summary(te: Path) -> None:
    expected = parse_out(te / "out.test")
    j = load_judgments(te / "qrels.test", format="trec")
    assert check(expected, j, load_run(te / "results.test"), missing="skip") > 10


def test_qrels_with_comment_lines(te: Path) -> None:
    expected = parse_out(te / "out.test")
    j = load_judgments(te / "qrels.test.with-comments", format="trec")
    assert check(expected, j, load_run(te / "results.test"), missing="skip") > 10


def test_out_test_aqc_missing_zero(te: Path) -> None:
    expected = parse_out(te / "out.test.aqc")
    j = load_judgments(te / "qrels.test", format="trec")
    run = load_run(te / "results.trunc")
    assert check(expected, j, run, missing="zero") > 150
    table = compute(j, run, [Measure("AP")], missing="zero")
    assert table.missing_queries == 1
    assert not table.in_run.all()


def test_out_test_aql_rel_level_2(te: Path) -> None:
    expected = parse_out(te / "out.test.aql")
    j = load_judgments(te / "qrels.rel_level", format="trec")  # grades -1: unjudged
    assert check(expected, j, load_run(te / "results.test"), rel=2, missing="skip") > 150


def test_out_comment_test_doc_ids_with_hash(te: Path) -> None:
    expected = parse_out(te / "out.comment.test")
    j = load_judgments(te / "qrels.comment.test", format="trec")
    run = load_run(te / "results.comment.test")
    # One topic has no relevant document: scored 0 on every ratio, counted in num_q
    assert len(j.answerable_ids) == int(expected["num_q"]["all"]) == 31
    assert check(expected, j, run, missing="skip") > 10


def test_judged_equals_one_minus_unj(te: Path) -> None:
    expected = parse_out(te / "out.test.aq")
    j = load_judgments(te / "qrels.test", format="trec")
    table = compute(j, load_run(te / "results.test"), [Measure("Judged", k) for k in (5, 10, 20)])
    for k in (5, 10, 20):
        got = dict(zip(table.query_ids, table.values[Measure("Judged", k)], strict=True))
        for qid, unj in expected[f"unj_{k}"].items():
            if qid != "all":
                assert round(1 - got[qid], 4) == pytest.approx(unj, abs=1e-9)
