"""Typed [systems.NAME] tables: refused when read, with file, line, table, key, value and
every allowed key; `assay validate` uses the same models; `assay schema config` is a JSON
Schema that a validator we did not write (jsonschema) agrees with."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.systems.schema import SYSTEM_MODELS, allowed_keys

BAD = {
    'alpha = "abc"': ("hybrid", "alpha: ", "valid number"),
    "alpha = nan": ("hybrid", "alpha: ", "finite"),
    "alpha = 2": ("hybrid", "alpha: ", "less than or equal to 1"),
    'max_cost = "lots"': ("hybrid", "max_cost: unknown key", None),
    "k1 = inf": ("bm25", "k1: ", "finite"),
    "b = -0.5": ("bm25", "b: ", "greater than or equal to 0"),
    'timeout = "10"': ("http", "timeout: ", "valid number"),
    "timeout = inf": ("http", "timeout: ", "finite"),
    "retries = 1000000000": ("http", "retries: ", "less than or equal to 100"),
    "colour = 3": ("python", "colour: unknown key", None),
}
BASE = {
    "hybrid": 'systems = ["a", "b"]\n',
    "bm25": "",
    "http": 'url = "http://127.0.0.1:9/"\n',
    "python": 'function = "x.py:f"\n',
}


def _config(tmp_path: Path, kind: str, line: str) -> Path:
    path = tmp_path / "assay.toml"
    path.write_text(f'# a project\n\n[systems.s]\ntype = "{kind}"\n{BASE[kind]}{line}\n')
    return path


def _cli(*argv: str, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


@pytest.mark.parametrize("line", sorted(BAD))
def test_bad_tables_are_refused_with_everything_named(tmp_path: Path, capsys, line: str) -> None:
    kind, shown, reason = BAD[line]
    path = _config(tmp_path, kind, line)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query_id": "q1", "query": "x", "relevant": {"d": 1}}\n')
    for argv in (
        ["run", str(queries), "-s", "s", "--config", str(path), "-o", str(tmp_path / "r.trec")],
        ["validate", str(path)],
    ):
        code, text = _cli(*argv, capsys=capsys)
        assert code == 2, text
        assert "unexpected" not in text and "a bug" not in text, text
        expected_line = 5 + BASE[kind].count("\n")
        assert f"{path}:{expected_line}" in text, text  # file and line
        assert f"{path}:{expected_line}: [systems.s] {shown}" in text, text  # table and key
        value = line.partition(" = ")[2].replace('"', "'")
        assert "unknown key" in shown or f"got {value}" in text, text  # the value
        if reason:
            assert reason in text, text
        assert "corpus" in text and "id_field" in text  # the complete list of allowed keys
        assert all(key in text for key in allowed_keys(kind)), text
        assert not (tmp_path / "r.trec").exists()


def test_choices_are_the_systems_own() -> None:
    from typing import get_args

    from assay.io.http_transport import CROSS_ORIGIN
    from assay.systems.fusion import FUSION_METHODS
    from assay.systems.schema import HttpTable, HybridTable

    assert get_args(HybridTable.model_fields["method"].annotation) == FUSION_METHODS
    field = HttpTable.model_fields["cross_origin_redirects"]
    assert get_args(field.annotation) == CROSS_ORIGIN


def test_every_field_is_described() -> None:
    from assay.io.configfile import ConfigDocument
    from assay.providers.model_config import ModelTable

    for model in [*SYSTEM_MODELS.values(), ConfigDocument, ModelTable]:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name}"


def test_the_shipped_example_is_valid(examples_dir: Path) -> None:
    from assay.systems.config import load_config

    data = load_config(examples_dir / "statistics" / "assay.toml")
    assert data["systems"]


def _schema(capsys) -> dict:
    code, text = _cli("schema", "config", capsys=capsys)
    assert code == 0, text
    return json.loads(text)


def test_the_json_schema_is_valid_and_agrees_with_the_models(
    tmp_path: Path, capsys, examples_dir: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema(capsys)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    example = tomllib.loads((examples_dir / "statistics" / "assay.toml").read_text())
    assert not list(validator.iter_errors(example))
    for line, (kind, _, _) in BAD.items():
        if "nan" in line or "inf" in line:
            continue  # JSON has no NaN or infinity: the models refuse them on their own
        table = tomllib.loads(_config(tmp_path, kind, line).read_text())
        assert list(validator.iter_errors(table)), line
    good = tomllib.loads(_config(tmp_path, "http", "timeout = 5\nretries = 3").read_text())
    assert not list(validator.iter_errors(good))
    assert set(schema["properties"]) == {"systems", "models"}
