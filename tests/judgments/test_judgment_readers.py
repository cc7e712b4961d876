"""Readers of every judgment format, on our fixtures and on the shared real data."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from assay.judgments import detect_format, load_judgments

FIX = Path(__file__).resolve().parents[1] / "data" / "judgments"


def test_known_item_csv_seed_003() -> None:
    js = load_judgments(FIX / "eval_questions.csv")
    assert js.format == "csv" and js.name == "eval_questions"
    assert len(js) == 15
    assert len(js.answerable_ids) == 14
    assert js.no_answer_ids == ["q15"]
    assert js.relevant("q01") == {"FS_UNDERNOURISH_PCT": 1}
    assert js.relevant("q15") == {}
    assert js.query("q11").metadata["language"] == "fr"
    assert set(js.groups("language")) == {"en", "fr", "es"}
    # q04's note holds two ';'-separated tags
    groups = js.groups("note")
    assert "q04" in groups["paraphrase"] and "q04" in groups["description field empty"]


def test_csv_several_expected_ids_and_extra_columns(tmp_path: Path) -> None:
    p = tmp_path / "q.csv"
    p.write_text("question_id,question,expected_id,assessor\nq1,a b,d1;d2|d3,ann\n")
    js = load_judgments(p)
    assert js.relevant("q1") == {"d1": 1, "d2": 1, "d3": 1}
    assert js.query("q1").metadata == {"assessor": "ann"}


def test_jsonl_seed_000_with_metadata_and_no_answer() -> None:
    js = load_judgments(FIX / "qrels.jsonl")
    assert js.format == "jsonl"
    assert js.query_ids == ["q01", "q05", "q17", "q18"]
    assert js.relevant("q05") == {"raging-bull-1980": 2, "rocky-1976": 1, "creed-2015": 0}
    assert js.no_answer_ids == ["q18"]
    assert js.query("q18").metadata["source"] == "model"
    assert set(js.metadata_fields) == {"query_class", "source"}


def test_jsonl_relevant_none_means_no_answer(tmp_path: Path) -> None:
    p = tmp_path / "q.jsonl"
    p.write_text('{"query_id": "a", "query": "x", "relevant": {"NONE": 1}}\n')
    js = load_judgments(p)
    assert js.no_answer_ids == ["a"] and len(js.qrels) == 0


def test_json_list_french_keys_seed_001() -> None:
    js = load_judgments(FIX / "eval_dataset.json")
    assert js.format == "json"
    assert js.query_ids == ["q1", "q2"]  # generated from the position in the list
    assert js.query("q1").text == "comment installer Python sur Windows"
    assert js.relevant("q1") == {"doc_install_python": 1, "doc_setup_env": 1, "doc_cuisine": 0}


def test_json_list_english_keys_and_ids(tmp_path: Path) -> None:
    p = tmp_path / "e.json"
    p.write_text(
        '[{"id": "x", "query": "q", "relevant": ["d1"], "non_relevant": ["d2"]},\n'
        ' {"query_id": "y", "query": "r", "relevant": {"d3": 2}},\n'
        ' {"query_id": "z", "query": "s", "relevant": [], "no_answer": true}]'
    )
    js = load_judgments(p)
    assert js.query_ids == ["x", "y", "z"]
    assert js.relevant("y") == {"d3": 2}
    assert js.no_answer_ids == ["z"]


def test_same_judgments_same_version_across_formats(tmp_path: Path) -> None:
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"query_id": "q1", "query": "hello", "relevant": {"d1": 1}}\n')
    csv = tmp_path / "a.csv"
    csv.write_text("question_id,question,expected_id\nq1,hello,d1\n")
    assert load_judgments(jsonl).version == load_judgments(csv).version


def test_trec_qrels_with_queries_tsv_and_jsonl(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 2\n1 0 d2 0\n2 0 d3 0\n")
    tsv = tmp_path / "topics.tsv.gz"
    tsv.write_bytes(gzip.compress(b"1\tfirst query\n2\tsecond query\n"))
    js = load_judgments(qrels, queries=tsv)
    assert js.format == "trec"
    assert js.query("1").text == "first query"
    # no grade >= 1: scored as trec_eval scores it, counted in one warning
    assert js.no_answer_ids == [] and js.answerable_ids == ["1", "2"]
    assert len(js.warnings) == 1 and "1 queries" in js.warnings[0]
    jsonl = tmp_path / "queries.jsonl"
    jsonl.write_text('{"_id": "1", "text": "a"}\n{"query_id": "2", "query": "b"}\n')
    assert load_judgments(qrels, "trec", queries=jsonl).query("2").text == "b"
    assert load_judgments(qrels, "trec").query("1").text == ""


def test_detect_format(tmp_path: Path) -> None:
    assert detect_format(FIX / "eval_questions.csv") == "csv"
    assert detect_format(FIX / "eval_dataset.json") == "json"
    p = tmp_path / "qrels"
    p.write_text("1 0 d 1\n")
    assert detect_format(p) == "trec"
    p.write_text('{"query_id": "a"}\n')
    assert detect_format(p) == "jsonl"


# ------------------------------------------------------------------ real data
def test_beir_scifact_fingerprint(shared_data: Path) -> None:
    js = load_judgments(shared_data / "beir_scifact")
    assert js.format == "beir" and js.name == "beir_scifact"
    assert len(js) == 300 and len(js.qrels) == 339
    ids = js.query_ids
    assert (ids[0], ids[9], ids[-1]) == ("1", "51", "1395")
    assert js.query("1").text == "0-dimensional biomaterials show inductive properties."
    assert js.query("51").text.startswith("ALDH1 expression is associated")
    assert js.relevant("1395") == {"17717391": 1}
    assert js.relevant("1") == {"31715818": 1}


def test_beir_unknown_split(shared_data: Path) -> None:
    from assay.core.errors import InputError

    with pytest.raises(InputError) as err:
        load_judgments(shared_data / "beir_scifact", split="dev")
    assert "split 'dev'" in str(err.value) and "train" in str(err.value)


def test_anserini_trec_qrels_and_gz_topics_match_beir(shared_data: Path) -> None:
    base = shared_data / "anserini_topics_qrels" / "beir"
    js = load_judgments(
        base / "qrels.beir-v1.0.0-scifact.test.txt",
        queries=base / "topics.beir-v1.0.0-scifact.test.tsv.gz",
    )
    assert len(js) == 300 and len(js.qrels) == 339
    assert (js.query_ids[0], js.query_ids[9], js.query_ids[-1]) == ("1", "51", "1395")
    beir = load_judgments(shared_data / "beir_scifact")
    assert js.qrels_dict() == beir.qrels_dict()


@pytest.mark.parametrize("name", ["nfcorpus", "fiqa", "arguana"])
def test_anserini_beir_qrels_load(shared_data: Path, name: str) -> None:
    base = shared_data / "anserini_topics_qrels" / "beir"
    qrels = base / f"qrels.beir-v1.0.0-{name}.test.txt"
    js = load_judgments(qrels, queries=base / f"topics.beir-v1.0.0-{name}.test.tsv.gz")
    lines = [ln.split() for ln in qrels.read_text().splitlines() if ln.strip()]
    assert len(js.qrels) == len(lines)
    assert js.relevant(lines[0][0])[lines[0][2]] == int(lines[0][3])
    assert all(js.query(q).text for q in js.query_ids[:20])


def test_trec_eval_qrels_with_comments(shared_data: Path) -> None:
    path = shared_data / "trec_eval_tests" / "qrels.test.with-comments"
    js = load_judgments(path, "trec")
    data = [ln.split() for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    assert len(js.qrels) == len(data)
    expected: dict[str, dict[str, int]] = {}
    for q, _, d, g in data:
        expected.setdefault(q, {})[d] = int(g)
    assert js.qrels_dict() == expected


def test_trec_eval_doc_ids_with_hash(shared_data: Path) -> None:
    path = shared_data / "trec_eval_tests" / "qrels.comment.test"
    js = load_judgments(path)
    first = path.read_text().splitlines()[0].split()
    assert "#" in first[2]
    assert js.relevant(first[0])[first[2]] == int(first[3])
    assert len(js.qrels) == len(path.read_text().splitlines())


def test_version_sorts_ids_as_pandas_and_builds_no_lookup_table(tmp_path: Path) -> None:
    """The version orders queries by id as ``sort_index`` does (non-ASCII ids included),
    without the lookup table pandas would then keep on the set's index."""
    import assay.judgments.models as models

    ids = ["q10", "é1", "q2", "Q1", "z", "ß", "q1", "日本", "a-b"]
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 d{i} {i % 3}\n" for i, q in enumerate(ids)), "utf-8")
    judgments = load_judgments(path, format="trec")
    assert models._by_id(judgments.queries).index.tolist() == sorted(ids)
    version = judgments.version
    assert "_engine" not in getattr(judgments.queries.index, "_cache", {})
    again = load_judgments(path, format="trec")
    real = models._by_id
    try:
        models._by_id = lambda q: q.sort_index()
        assert again.version == version
    finally:
        models._by_id = real
