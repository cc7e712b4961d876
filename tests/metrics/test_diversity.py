"""Diversity measures equal ir_measures' ndeval provider (pyndeval) query by query.

Diversity qrels (column 2 the subtopic) and runs are generated (hypothesis),
written as files and read by both sides: assay's ``trec-diversity`` reader and
ir_measures' TREC reader, whose iteration column its ndeval provider takes as
the subtopic. Plain qrels (one subtopic per query) are checked on trec_eval's
own test data.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import InputError
from assay.judgments.load import load_judgments
from assay.metrics.engine import compute
from assay.runs.io import load_run

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")

MEASURES = (
    "alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20", "alpha_nDCG@5",
    "ERR_IA@10", "P_IA@5", "StRecall@5", "alpha_nDCG(alpha=0.8)@10", "NRBP(alpha=0.3,beta=0.7)",
    "ERR_IA@1", "alpha_nDCG@1", "alpha_nDCG(rel=2)@20", "ERR_IA(rel=2)@20",
)  # fmt: skip

_DOCS = st.sampled_from([f"d{i}" for i in range(14)] + ["D1", "d1a", "e", "ä"])


@st.composite
def diversity_case(draw: st.DrawFn) -> tuple[str, str]:
    """(qrels text, run text): several queries, subtopics, grades -1..3, distinct scores."""
    qrels, run = [], []
    for q in range(draw(st.integers(1, 5))):
        n_sub = draw(st.integers(1, 4))
        for doc in draw(st.lists(_DOCS, min_size=1, max_size=10, unique=True)):
            for s in draw(st.lists(st.integers(0, n_sub), min_size=1, max_size=3, unique=True)):
                qrels.append(f"{q} {s} {doc} {draw(st.integers(-1, 3))}")
        ranked = draw(
            st.lists(_DOCS | st.sampled_from(["x1", "x2"]), min_size=1, max_size=25, unique=True)
        )
        run += [f"{q} Q0 {d} {r + 1} {100 - r} sys" for r, d in enumerate(ranked)]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _compare(qrels: Path, run: Path, measures: tuple[str, ...], fmt: str) -> int:
    """Assert equality query by query; return how many values were compared."""
    judgments = load_judgments(qrels, fmt)
    table = compute(judgments, load_run(run), list(measures), missing="skip")
    peer_qrels = list(ir_measures.read_trec_qrels(str(qrels)))
    peer_run = list(ir_measures.read_trec_run(str(run)))
    compared = 0
    for name, ours in zip(measures, table.values.values(), strict=True):
        mine = dict(zip(table.query_ids, ours.tolist(), strict=True))
        peer = ir_measures.parse_measure(name)
        for value in ir_measures.iter_calc([peer], peer_qrels, peer_run):
            assert mine[value.query_id] == pytest.approx(value.value, rel=1e-12, abs=1e-15), (
                name,
                value.query_id,
            )
            compared += 1
    return compared


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_case())
def test_equal_to_ndeval_query_by_query(case: tuple[str, str]) -> None:
    qrels_text, run_text = case
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = Path(tmp) / "qrels.txt", Path(tmp) / "run.txt"
        qrels.write_text(qrels_text, encoding="utf-8")
        run.write_text(run_text, encoding="utf-8")
        _compare(qrels, run, MEASURES, "trec-diversity")


def test_plain_qrels_are_one_subtopic_per_query(shared_data: Path, tmp_path: Path) -> None:
    """trec_eval's test qrels and run (scores made distinct: pyndeval breaks ties another way)."""
    source = shared_data / "trec_eval_tests"
    lines = (source / "results.test").read_text().split("\n")
    rows = [line.split() for line in lines if line.strip()]
    rows.sort(key=lambda r: (r[0], -float(r[4]), r[2]))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{r[0]} Q0 {r[2]} {i} {-i} s\n" for i, r in enumerate(rows)))
    compared = _compare(source / "qrels.test", run, MEASURES[:9], "trec")
    assert compared == 9 * 3  # its 3 queries


def test_subtopics_do_not_change_the_plain_measures(tmp_path: Path) -> None:
    """Other measures read each document's highest grade over its subtopics."""
    (tmp_path / "div.txt").write_text("1 0 a 1\n1 1 a 2\n1 2 b 0\n2 0 c 1\n")
    (tmp_path / "plain.txt").write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n2 Q0 c 1 1 s\n")
    div = load_judgments(tmp_path / "div.txt", "trec-diversity")
    plain = load_judgments(tmp_path / "plain.txt", "trec")
    assert div.qrels_dict() == plain.qrels_dict()
    assert div.version != plain.version  # the subtopics are content
    run = load_run(tmp_path / "run.txt")
    for name in ("nDCG@10", "AP", "P@1"):
        a = compute(div, run, [name]).values
        b = compute(plain, run, [name]).values
        np.testing.assert_array_equal(next(iter(a.values())), next(iter(b.values())))
    both = compute(div, run, ["StRecall@1", "StRecall@2"]).values
    assert [v.tolist() for v in both.values()] == [[0.0, 1.0], [1.0, 1.0]]


def test_a_subtopic_judged_twice_is_an_error_naming_the_lines(tmp_path: Path) -> None:
    path = tmp_path / "div.txt"
    path.write_text("1 0 a 1\n1 1 a 1\n1 0 a 0\n1 x\n")
    with pytest.raises(InputError) as exc:
        load_judgments(path, "trec-diversity")
    text = str(exc.value)
    assert "div.txt:3:" in text and "first seen on line 1" in text and "'1 subtopic 0'" in text
    assert "div.txt:4: expected 4 fields" in text
    # the plain reader still refuses a document judged twice for one query
    with pytest.raises(InputError, match="duplicate judgment"):
        load_judgments(tmp_path / "div.txt", "trec")
