"""`assay schema matrix`: the JSON Schema of the matrix file's one document model, checked
by a validator we did not write (jsonschema) against the shipped examples and bad files."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.matrix.config import MatrixFile

BAD = [
    '[matrix]\ncases = "c.jsonl"\nrepeats = 0\n[prompts.p]\ntext = "x"\n',
    '[matrix]\ncases = "c.jsonl"\ncolour = 1\n[prompts.p]\ntext = "x"\n',
    '[matrix]\ncases = "c.jsonl"\n',  # no prompts
    '[matrix]\ncases = "c.jsonl"\n[prompts.p]\ntext = "x"\n[baselines]\nb = 1\n',
]


def _schema(capsys) -> dict:
    with pytest.raises(SystemExit) as exc:
        main(["schema", "matrix"])
    assert not exc.value.code
    return json.loads(capsys.readouterr().out)


def test_the_schema_takes_the_examples_and_refuses_bad_files(capsys, examples_dir: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema(capsys)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    examples = sorted((examples_dir / "matrix").glob("*.toml"))
    assert examples
    for path in examples:
        data = tomllib.loads(path.read_text())
        assert not list(validator.iter_errors(data)), path
        MatrixFile.model_validate(data)  # the model agrees
    for text in BAD:
        data = tomllib.loads(text)
        assert list(validator.iter_errors(data)), text
        with pytest.raises(ValueError):
            MatrixFile.model_validate(data)


def test_every_field_is_described() -> None:
    schema = MatrixFile.model_json_schema()
    for model in [schema, *schema["$defs"].values()]:
        for name, prop in model["properties"].items():
            assert prop.get("description"), name
