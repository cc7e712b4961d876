"""One corpus-id reader for evaluate, validate, answers and BEIR judgments."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.answers import read_corpus_ids as answers_ids
from assay.core.errors import InputError
from assay.corpora import load_corpus, read_corpus_ids

RECORDS = '{"_id": "d1", "text": "a"}\n{"_id": "d2", "title": "b"}\n'


def test_beir_folder_file_and_fast_path_agree(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_text(RECORDS)
    ids = frozenset({"d1", "d2"})
    assert read_corpus_ids(tmp_path) == read_corpus_ids(tmp_path / "corpus.jsonl") == ids
    assert frozenset(load_corpus(tmp_path).ids) == ids
    assert answers_ids is read_corpus_ids


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (RECORDS + '{"_id": "d1", "text": "c"}\n', "duplicate id 'd1' (first on line 1)"),
        (RECORDS + "\n" + RECORDS, "blank line"),
        ('{"_id": ""}\n', "empty id"),
        ('{"_id": 1}\n{"_id": [2]}\n', "id must be text or an integer, found list"),
    ],
)
def test_a_bad_beir_corpus_is_reported_as_load_corpus_does(
    tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(body)
    with pytest.raises(InputError) as fast:
        read_corpus_ids(path)
    with pytest.raises(InputError) as slow:
        load_corpus(path)
    assert [str(p) for p in fast.value.problems] == [str(p) for p in slow.value.problems]
    assert any(message in p.message for p in fast.value.problems)


def test_other_formats_and_id_field(tmp_path: Path) -> None:
    csv = tmp_path / "docs.csv"
    csv.write_text("key,id,text\nk1,d1,a\nk2,d2,b\n")
    assert read_corpus_ids(csv) == {"d1", "d2"}
    assert read_corpus_ids(csv, id_field="key") == {"k1", "k2"}
    named = tmp_path / "corpus.jsonl"
    named.write_text('{"doc_id": "d7", "text": "a"}\n')  # named like BEIR, keyed like JSONL
    assert read_corpus_ids(named) == {"d7"}


def test_plain_list_of_ids(tmp_path: Path) -> None:
    plain = tmp_path / "ids.txt"
    plain.write_text(" d1\n\nd2\r\n", encoding="utf-8")
    assert read_corpus_ids(plain) == {"d1", "d2"}
    plain.write_bytes(b"d1\nd\xff2\n")
    with pytest.raises(InputError, match="not UTF-8"):
        read_corpus_ids(plain)
    with pytest.raises(InputError, match="file not found"):
        read_corpus_ids(tmp_path / "absent.txt")


def test_scifact_fast_path_matches_load_corpus(shared_data: Path) -> None:
    folder = shared_data / "beir_scifact"
    corpus = next(folder.rglob("corpus.jsonl*"))
    assert read_corpus_ids(corpus) == frozenset(load_corpus(corpus).ids)
