"""load_corpus: formats, defaults, versions, select, and every validation rule."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from assay.core.errors import InputError, UsageError
from assay.corpora import Corpus, load_corpus


@pytest.fixture()
def corpora(data_dir: Path) -> Path:
    return data_dir / "corpora"


def test_example_catalog_defaults(examples_dir: Path) -> None:
    c = load_corpus(examples_dir / "statistics" / "catalog.csv")
    assert c.id_field == "idno"  # no 'id' column, so 'idno' is picked
    assert c.text_fields == ("name", "definition_long")
    assert c.ids[0] == "FS_UNDERNOURISH_PCT" and len(c) == 5
    texts = dict(zip(c.ids, c.texts(), strict=True))
    # The empty description is skipped: only the name remains, no trailing space.
    assert texts["LF_UNEMP_PCT"] == c.get("LF_UNEMP_PCT")["name"]
    assert "LF_UNEMP_PCT" in c and "NOPE" not in c
    assert c.ids_set() == frozenset(c.ids)


def test_jsonl_defaults_skip_non_text_and_null(corpora: Path) -> None:
    c = load_corpus(corpora / "small_catalog.jsonl")
    assert c.id_field == "idno"
    assert c.text_fields == ("name", "definition_long")  # 'tags' is a list, not text
    assert c.texts()[1] == "Births per woman"


def test_same_records_same_version_across_formats(tmp_path: Path) -> None:
    rows = [{"id": "a", "title": "Alpha", "text": "x, y"}, {"id": "b", "title": "Beta", "text": ""}]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "c.csv").write_text('id,title,text\r\na,Alpha,"x, y"\r\nb,Beta,\r\n')
    with gzip.open(tmp_path / "c.jsonl.gz", "wt") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows))
    versions = {load_corpus(tmp_path / n).version for n in ("c.jsonl", "c.csv", "c.jsonl.gz")}
    assert len(versions) == 1
    assert next(iter(versions)).startswith("sha256:") and len(next(iter(versions))) == 23


def test_bom_and_crlf(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbfid,name\r\nA,Alpha\r\nB,Beta\r\n")
    c = load_corpus(p)
    assert c.id_field == "id" and c.ids == ["A", "B"] and c.texts() == ["Alpha", "Beta"]


def test_version_changes_with_content_not_with_text_fields(tmp_path: Path) -> None:
    p = tmp_path / "c.csv"
    p.write_text("id,name,desc\nA,Alpha,first\n")
    v1 = load_corpus(p).version
    assert load_corpus(p, text_fields=["name"]).version == v1
    p.write_text("id,name,desc\nA,Alpha,changed\n")
    assert load_corpus(p).version != v1


def test_select_builds_a_new_narrower_corpus(examples_dir: Path) -> None:
    c = load_corpus(examples_dir / "statistics" / "catalog.csv")
    names = c.select(["name"])
    assert isinstance(names, Corpus) and names is not c
    assert names.text_fields == ("name",)
    assert all(set(r) == {"idno", "name"} for r in names.records)
    assert names.version != c.version
    assert c.text_fields == ("name", "definition_long")  # original untouched
    with pytest.raises(UsageError, match="definition_short"):
        c.select(["definition_short"])


def test_beir_scifact(shared_data: Path) -> None:
    folder = shared_data / "beir_scifact"
    c = load_corpus(folder / "corpus.jsonl")
    assert c.format == "beir" and c.id_field == "_id"
    assert c.text_fields == ("title", "text")
    assert len(c) == 5183  # PROVENANCE.md: 5,183 docs
    judged = {
        line.split("\t")[1]
        for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]
        if line.strip()
    }
    assert judged <= c.ids_set()
    assert c.texts()[0].startswith(c.records[0]["title"])


def _problems(exc: pytest.ExceptionInfo[InputError]) -> list:
    return exc.value.problems


def test_duplicate_and_empty_ids(corpora: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_corpus(corpora / "duplicate_ids.csv")
    probs = _problems(exc)
    dup = next(p for p in probs if "duplicate" in p.message)
    assert dup.path.endswith("duplicate_ids.csv") and dup.line == 4 and dup.field == "id"
    assert "first on line 2" in dup.message and dup.hint
    empty = next(p for p in probs if "empty id" in p.message)
    assert empty.line == 5 and empty.field == "id"


def test_malformed_jsonl(corpora: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_corpus(corpora / "malformed.jsonl")
    by_line = {p.line: p for p in _problems(exc)}
    assert "malformed JSON" in by_line[2].message
    assert by_line[3].field == "title" and "expected text" in by_line[3].message
    assert "must be a JSON object" in by_line[4].message


def test_unclosed_quote(corpora: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_corpus(corpora / "unclosed_quote.csv")
    (p,) = _problems(exc)
    assert "malformed CSV" in p.message and p.line == 2 and p.hint


def test_wrong_number_of_cells(tmp_path: Path) -> None:
    p = tmp_path / "ragged.csv"
    p.write_text("id,name\nA,Alpha\nB,Beta, with comma\n")
    with pytest.raises(InputError) as exc:
        load_corpus(p)
    (prob,) = _problems(exc)
    assert prob.line == 3 and "expected 2 fields, found 3" in prob.message and "quote" in prob.hint


def test_missing_id_field(corpora: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_corpus(corpora / "no_id_field.csv")
    (p,) = _problems(exc)
    assert "no id field" in p.message and "--id-field" in p.hint
    with pytest.raises(InputError) as exc:
        load_corpus(corpora / "no_id_field.csv", id_field="idno")
    (p,) = _problems(exc)
    assert p.line == 1 and p.field == "idno"
    assert load_corpus(corpora / "no_id_field.csv", id_field="code").ids == ["A"]


def test_missing_id_in_jsonl_record(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "a", "text": "x"}\n{"text": "y"}\n')
    with pytest.raises(InputError) as exc:
        load_corpus(p)
    (prob,) = _problems(exc)
    assert prob.line == 2 and prob.field == "id" and "missing id" in prob.message


def test_unknown_text_field(examples_dir: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_corpus(examples_dir / "statistics" / "catalog.csv", text_fields=["title"])
    (p,) = _problems(exc)
    assert p.field == "title" and p.line == 1 and "unknown text field" in p.message


def test_encoding_error_names_line(tmp_path: Path) -> None:
    p = tmp_path / "latin1.csv"
    p.write_bytes("id,name\nA,Alpha\nB,Desnutrici\u00f3n\n".encode("latin-1"))
    with pytest.raises(InputError) as exc:
        load_corpus(p)
    (prob,) = _problems(exc)
    assert prob.line == 3 and "not UTF-8" in prob.message and "UTF-8" in prob.hint


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_corpus(tmp_path / "absent.csv")
    (tmp_path / "c.txt").write_text("x")
    with pytest.raises(UsageError, match="format"):
        load_corpus(tmp_path / "c.txt")
    with pytest.raises(UsageError, match="unknown corpus format"):
        load_corpus(tmp_path / "c.txt", format="xml")


def test_from_records() -> None:
    c = Corpus.from_records([{"id": 1, "t": "a"}, {"id": 2, "t": "b"}])
    assert c.ids == ["1", "2"] and c.text_fields == ("t",)
    with pytest.raises(UsageError, match="duplicate"):
        Corpus.from_records([{"id": "x"}, {"id": "x"}])
