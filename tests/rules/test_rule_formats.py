"""One format detector: every reader and ``assay validate`` tell a file's format alike."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.corpora.load import detect_format as corpus_format
from assay.io.formats import detect_format, detect_kind, format_from_name
from assay.judgments.load import detect_format as judgments_format
from assay.procedures.validation import detect_kind as validate_kind
from assay.runs.io import detect_format as run_format

FILES = {  # name: (content, kind, format)
    "q.txt": ("# comment, with a comma\n1 0 d1 1\n", "judgments", "trec"),
    "list.dat": ('[{"query": "a", "relevant": ["d1"]}]\n', "judgments", "json"),
    "lines.dat": ('\n{"query_id": "q1", "relevant": {"d1": 1}}\n', "judgments", "jsonl"),
    "known.dat": ("question_id,question,expected_id\n", "judgments", "csv"),
    "docs.dat": ("id,text\nd1,hello\n", "corpus", "csv"),
    "docs2.dat": ('{"_id": "d1", "text": "x"}\n', "corpus", "jsonl"),
    "run.dat": ("q1 Q0 d1 1 2.5 tag\n", "run", "trec"),
    "run2.dat": ('{"query_id": "q1", "results": ["d1"]}\n', "run", "jsonl"),
}


@pytest.mark.parametrize("name", list(FILES))
def test_kind_and_format_from_content(tmp_path: Path, name: str) -> None:
    content, kind, fmt = FILES[name]
    p = tmp_path / name
    p.write_text(content)
    assert detect_kind(p) == validate_kind(p) == kind
    if kind == "judgments":
        assert detect_format(p, kind) == judgments_format(p) == fmt
    if kind == "run":
        assert detect_format(p, kind) == run_format(p) == fmt


def test_gzip_and_bom_are_looked_through(tmp_path: Path) -> None:
    p = tmp_path / "run.gz"
    p.write_bytes(gzip.compress(b'\xef\xbb\xbf{"query_id": "q1", "results": []}\n'))
    assert detect_kind(p) == "run" and run_format(p) == "jsonl"


@pytest.mark.parametrize(
    ("name", "kind", "fmt"),
    [
        ("a.jsonl.gz", "judgments", "jsonl"),
        ("a.json", "judgments", "json"),
        ("a.json", "run", "jsonl"),
        ("a.json", "corpus", "jsonl"),
        ("a.tsv", "run", "trec"),
        ("a.tsv", "corpus", "tsv"),
        ("a.tsv", "judgments", None),  # TREC qrels or not: the content tells
        ("corpus.jsonl.gz", "corpus", "beir"),
        ("a.res", "run", "trec"),
    ],
)
def test_names(name: str, kind: str, fmt: str | None) -> None:
    assert format_from_name(name, kind) == fmt


def test_folders_and_unknown_corpus_names(tmp_path: Path) -> None:
    assert judgments_format(tmp_path) == "beir" and detect_kind(tmp_path) == "judgments"
    with pytest.raises(UsageError, match=r"folder without corpus\.jsonl"):
        corpus_format(tmp_path)
    (tmp_path / "corpus.jsonl").write_text("")
    assert corpus_format(tmp_path) == "beir"
    with pytest.raises(UsageError, match="cannot tell the corpus format"):
        corpus_format(tmp_path / "docs.dat")


def test_pair_files_told_by_the_one_detector(tmp_path: Path) -> None:
    from assay.io.formats import detect_pairs
    from assay.judges.labels import is_label_file, read_labels
    from assay.judges.relevance import read_pairs

    bom = b"\xef\xbb\xbf"
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes(bom + b'{"query_id": "q1", "doc_id": "d1", "grade": 2}\n')
    review = tmp_path / "review.ndjson.gz"
    review.write_bytes(
        gzip.compress(b'\n{"query_id": "q1", "doc_id": "d1", "reviewer_grade": 1}\n')
    )
    pool = tmp_path / "pool.jsonl"
    pool.write_bytes(bom + b'{"query_id": "q1", "query": "tv", "doc_id": "d1"}\n')
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "query": "tv", "relevant": {"d1": 1}}\n')
    other = tmp_path / "labels.txt"
    other.write_text('{"query_id": "q1", "doc_id": "d1", "grade": 2}\n')
    assert [detect_pairs(p) for p in (labels, review, pool, qrels, other, tmp_path)] == [
        "labels",
        "review",
        "labels",
        None,
        None,
        None,
    ]
    assert is_label_file(labels) and is_label_file(review) and not is_label_file(qrels)
    assert read_labels(labels).frame["grade"].tolist() == [2]
    assert read_pairs(pool)[1] is None and read_pairs(qrels)[1] == 1


def test_srw_and_graded_csv_told_by_content(tmp_path: Path) -> None:
    cases = {
        "a.txt": ('{"name": "x", "judgmentRatings": []}\n', "srw"),
        "b.jsonl": ('{"name": "x",\n "querySetQueries": []}\n', "srw-queries"),
        "c.dat": ('\ufeffquery,"docid",rating\ntv,d1,1\n', "graded-csv"),
        "d.csv": ("question_id,question,expected_id,rating\n", "csv"),
    }
    for name, (content, fmt) in cases.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
        assert judgments_format(tmp_path / name) == fmt, name
    assert detect_kind(tmp_path / "c.dat") == "judgments"
