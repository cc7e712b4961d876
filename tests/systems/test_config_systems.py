"""build_system: assay.toml tables, type names, overrides, errors and secret redaction."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay.systems.config as config_module
from assay.core.errors import InputError, UsageError
from assay.systems.base import Hit, config_hash
from assay.systems.config import build_system, register_system_type, system_names
from assay.systems.keyword import KeywordSystem


def test_example_config_systems(examples_dir: Path) -> None:
    cfg = examples_dir / "statistics" / "assay.toml"
    assert system_names(cfg)[:3] == ["keyword", "keyword-names-only", "bm25"]
    assert system_names(cfg)[3:] == ["multilingual", "wordllama"]  # the second step
    full = build_system("keyword", config_path=cfg)
    names = build_system("keyword-names-only", config_path=cfg)
    assert isinstance(full, KeywordSystem) and full.name == "keyword"
    assert full.text_fields == ("name", "definition_long") and names.text_fields == ("name",)
    assert full.corpus.version == names.corpus.version  # same catalog, different system
    assert config_hash(full.config) != config_hash(names.config)


def test_type_name_with_overrides(examples_dir: Path) -> None:
    catalog = examples_dir / "statistics" / "catalog.csv"
    system = build_system(
        "keyword", corpus=str(catalog), overrides={"id_field": "idno", "text_fields": ["name"]}
    )
    assert system.text_fields == ("name",) and system.corpus.id_field == "idno"


def _toml(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "assay.toml"
    p.write_text(text)
    return p


def test_unknown_name_type_and_missing_corpus(tmp_path: Path) -> None:
    cfg = _toml(
        tmp_path,
        '[systems.a]\ntype = "keyword"\n\n[systems.b]\ntype = "telepathy"\n\n[systems.c]\nx = 1\n',
    )
    with pytest.raises(UsageError, match=r"unknown system 'zzz'.*declared: a, b, c"):
        build_system("zzz", config_path=cfg)
    with pytest.raises(UsageError, match=r"assay.toml \[systems.b\]: unknown system type"):
        build_system("b", config_path=cfg)
    with pytest.raises(UsageError, match=r"assay.toml \[systems.a\]: .*needs a corpus"):
        build_system("a", config_path=cfg)
    with pytest.raises(UsageError, match=r"\[systems.c\]: no type"):
        build_system("c", config_path=cfg)
    with pytest.raises(UsageError, match="not found"):
        build_system("a", config_path=tmp_path / "absent.toml")


def test_toml_syntax_error_names_line(tmp_path: Path) -> None:
    cfg = _toml(tmp_path, '[systems.a]\ntype = "keyword"\ncorpus = \n')
    with pytest.raises(InputError) as exc:
        build_system("a", config_path=cfg)
    (p,) = exc.value.problems
    assert p.line == 3 and "invalid TOML" in p.message


def test_corpus_errors_name_the_corpus_file(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("id,name\nA,Alpha\n")
    cfg = _toml(tmp_path, '[systems.a]\ntype = "keyword"\ncorpus = "c.csv"\ntext_fields = ["x"]\n')
    with pytest.raises(InputError) as exc:
        build_system("a", config_path=cfg)
    assert exc.value.problems[0].path.endswith("c.csv")
    assert exc.value.problems[0].field == "x"


class _Echo:
    def __init__(self, name: str, table: dict) -> None:
        self.name = name
        self.table = table

    @property
    def config(self) -> dict:
        return {"type": "echo", **self.table}

    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(self.table["headers"]["Authorization"])]


def test_secrets_from_environment_are_redacted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(config_module, "_REGISTERED", dict(config_module._REGISTERED))
    register_system_type("echo", lambda name, table, *, corpus, base_dir: _Echo(name, table))
    cfg = _toml(
        tmp_path,
        '[systems.e]\ntype = "echo"\nheaders = { Authorization = "Bearer ${ASSAY_T_TOKEN}" }\n',
    )
    monkeypatch.setenv("ASSAY_T_TOKEN", "s3cr3t-value")
    system = build_system("e", config_path=cfg)
    assert system.search("q", 1)[0].doc_id == "Bearer s3cr3t-value"  # the system gets it
    assert system.config["headers"]["Authorization"] == "Bearer ${ASSAY_T_TOKEN}"
    assert "s3cr3t-value" not in str(system.config)
    monkeypatch.delenv("ASSAY_T_TOKEN")
    with pytest.raises(UsageError, match="ASSAY_T_TOKEN is not set"):
        build_system("e", config_path=cfg)


def test_function_spec_builds_a_python_system(data_dir: Path) -> None:
    spec = f"{data_dir / 'systems' / 'user_search.py'}:ids_only"
    system = build_system(spec)
    assert system.config["type"] == "python"
    assert [h.doc_id for h in system.search("x", 5)] == ["d3", "d1"]
