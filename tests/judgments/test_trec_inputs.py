"""TREC inputs read as trec_eval reads them: negative grades, 3 columns, SGML topics."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.judgments.load import load_judgments
from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.engine import compute
from assay.runs.models import Run


def test_negative_grades_load_and_are_non_relevant(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 0 d1 1\n1 0 d2 -1\n1 0 d3 -2\n1 0 d4 0\n")
    js = load_judgments(path, "trec")
    assert js.relevant("1") == {"d1": 1, "d2": -1, "d3": -2, "d4": 0}
    run = Run.from_dict({"1": ["d2", "d3", "d1", "d4"]})
    table = compute(js, run, ["P@2", "nDCG@2", "NumRel", "NumNonrelJudgedRet", "Judged@4"])
    values = {m.name: float(v[0]) for m, v in table.values.items()}
    assert values["P@2"] == 0.0 and values["nDCG@2"] == 0.0  # no gain for -1, -2
    assert values["NumRel"] == 1 and values["NumNonrelJudgedRet"] == 1  # only d4
    assert values["Judged@4"] == 0.5  # -1/-2: in the pool but not judged (trec_eval)


def test_three_column_qrels(tmp_path: Path) -> None:
    path = tmp_path / "cranqrel"
    path.write_text("1 184 2 \n1 29 -1 \n2 12 3 \n")
    js = load_judgments(path, "trec")
    assert js.relevant("1") == {"184": 2, "29": -1}
    assert js.answerable_ids == ["1", "2"]


def test_zero_only_topic_is_scored_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 0 d1 1\n2 0 d2 0\n")
    js = load_judgments(path, "trec")
    assert js.answerable_ids == ["1", "2"] and js.no_answer_ids == []
    assert "scored as trec_eval" in js.warnings[0]
    table = compute(js, Run.from_dict({"1": ["d1"], "2": ["d2"]}), ["AP", "NumQ"])
    summary = {m.name: v for m, v in table.aggregate().items()}
    assert summary == {"AP": 0.5, "NumQ": 2.0}  # trec_eval: map 0.5000, num_q 2


@pytest.mark.parametrize("grade", ["1.5", "0x37", "1e+8"])
def test_fractional_grades_are_errors_but_trec_eval_mode_reads_them(tmp_path, grade) -> None:
    path = tmp_path / "q.txt"
    path.write_text(f"1 0 d1 1\n1 0 d2 {grade}\n")
    with pytest.raises(InputError, match="not a whole number"):
        load_judgments(path, "trec")
    js = load_trec_eval_qrels(path)
    assert js.relevant("1")["d2"] == int(grade[0])  # C atol: the leading digits
    assert "1 grades are not whole numbers" in js.warnings[0]


def test_sgml_topics(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("301 0 d1 1\n302 0 d2 1\n")
    topics = tmp_path / "topics.301"
    topics.write_text(
        "<top>\n<num> Number: 301\n<title> International Organized Crime\n\n"
        "<desc> Description:\nIdentify organizations.\n</top>\n\n"
        "<top>\n<num> Number: 302 \n<title> Topic: Poliomyelitis and\n Post-Polio\n</top>\n"
    )
    js = load_judgments(qrels, "trec", queries=topics)
    assert js.query("301").text == "International Organized Crime"
    assert js.query("302").text == "Poliomyelitis and Post-Polio"


def test_cacm_doc_topics(shared_data: Path) -> None:
    js = load_judgments(
        shared_data / "cacm" / "qrels.cacm.txt",
        "trec",
        queries=shared_data / "cacm" / "topics.cacm.txt",
    )
    assert len(js) == 52
    assert js.query("1").text.startswith("What articles exist which deal with TSS")


def test_cranfield_three_columns_with_negative_grades(shared_data: Path) -> None:
    js = load_judgments(shared_data / "glasgow_classic" / "cran" / "cranqrel", "trec")
    assert len(js) == 225 and js.summary()["judgments_per_grade"][-1] == 225


def test_beir_negative_grade(tmp_path: Path) -> None:
    root = tmp_path / "b"
    (root / "qrels").mkdir(parents=True)
    (root / "queries.jsonl").write_text('{"_id": "1", "text": "x"}\n')
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t-1\n")
    assert load_judgments(root).relevant("1") == {"d1": 1, "d2": -1}
