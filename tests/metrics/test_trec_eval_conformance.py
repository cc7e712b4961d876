"""Conformance with trec_eval's own expected outputs (test/out.* of usnistgov/trec_eval).

Every measure assay supports is compared per query and on the summary line at
trec_eval's printed 4 decimals. trec_eval sums ``num_*`` on the summary line
and averages the rest over ``num_q``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.judgments.load import load_judgments
from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import Measure
from assay.runs.io import load_run

_SIMPLE = {
    "num_ret": Measure("NumRet"),
    "num_rel": Measure("NumRel"),
    "num_rel_ret": Measure("NumRelRet"),
    "map": Measure("AP"),
    "Rprec": Measure("Rprec"),
    "recip_rank": Measure("RR"),
    "ndcg": Measure("nDCG"),
}
_CUT = {"P": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success"}
_SUMMED = {"num_ret", "num_rel", "num_rel_ret"}


def to_measure(name: str, rel: int = 1) -> Measure | None:
    """Map a trec_eval measure name to an assay Measure (None if unsupported)."""
    if name in _SIMPLE:
        m = _SIMPLE[name]
    else:
        hit = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", name)
        if not hit:
            return None
        m = Measure(_CUT[hit.group(1)], int(hit.group(2)))
    if rel != 1 and m.family != "nDCG" and m.family != "NumRet":
        m = Measure(m.family, m.cutoff, rel, m.gain)
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


def judgments_clipped(path: Path) -> JudgmentSet:
    """TREC qrels with negative grades (trec_eval: judged, gain 0) read as grade 0."""
    frame = pd.read_csv(
        path, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "grade"], dtype=str
    )
    frame["grade"] = frame["grade"].astype("int64").clip(lower=0)
    pos = frame.groupby("query_id")["grade"].max()
    queries = pd.DataFrame(
        {"text": "", "no_answer": (pos < 1).to_numpy()}, index=pd.Index(pos.index, name="query_id")
    )
    return JudgmentSet(queries, frame[["query_id", "doc_id", "grade"]].reset_index(drop=True))


def check(expected: dict, judgments: JudgmentSet, run, *, rel: int = 1, missing: str) -> int:
    """Compare every supported measure; return how many values were compared."""
    names = {n: m for n in expected if (m := to_measure(n, rel)) is not None}
    table = compute(judgments, run, list(names.values()), missing=missing)
    num_q = int(expected["num_q"]["all"])
    compared = 0
    for name, m in names.items():
        values = dict(zip(table.query_ids, table.values[m].tolist(), strict=True))
        for qid, want in expected[name].items():
            if qid == "all":
                continue
            assert round(values[qid], 4) == pytest.approx(want, abs=1e-9), (name, qid)
            compared += 1
        total = float(np.sum(table.values[m]))
        got = total if name in _SUMMED else total / num_q
        if name in _SUMMED and num_q != len(table):
            continue
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
    j = judgments_clipped(te / "qrels.rel_level")
    assert check(expected, j, load_run(te / "results.test"), rel=2, missing="skip") > 150


def test_out_comment_test_doc_ids_with_hash(te: Path) -> None:
    expected = parse_out(te / "out.comment.test")
    j = load_judgments(te / "qrels.comment.test", format="trec")
    run = load_run(te / "results.comment.test")
    # One topic has no relevant document: assay treats it as a no-answer query and
    # never scores it; trec_eval scores it 0 on every ratio, so means divide by num_q.
    assert len(j.no_answer_ids) == int(expected["num_q"]["all"]) - len(j.answerable_ids)
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
