"""Faults in config files read one way, ``FILE:LINE: [table.name] key: message``, for
systems and models (assay.toml) and matrix files alike, and exit 2 from the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli.app import main
from assay.core.errors import AssayError
from assay.matrix.config import load_matrix
from assay.providers.model_config import get_model
from assay.systems.config import load_config

SYSTEMS = {
    "unknown key": ('[systems.s]\ntype = "bm25"\ncolour = 3\n', 3, "systems.s", "colour"),
    "wrong type": ('[systems.s]\ntype = "bm25"\nk1 = "high"\n', 3, "systems.s", "k1"),
    "out of bound": (
        '[systems.s]\ntype = "hybrid"\nsystems = ["a", "b"]\nalpha = 3\n',
        4,
        "systems.s",
        "alpha",
    ),
    "not a table": ("[systems]\ns = 3\n", 2, "systems.s", ""),
}
MODEL = '[models.m]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
MODELS = {
    "unknown key": (MODEL + "tempurature = 1\n", 4, "models.m", "tempurature"),
    "wrong type": (MODEL + 'max_tokens = "many"\n', 4, "models.m", "max_tokens"),
    "out of bound": (MODEL + "retries = 1000\n", 4, "models.m", "retries"),
    "not a table": ("# models\n[models]\nm = 3\n", 3, "models.m", ""),
}
PROMPT = '\n[prompts.p]\ntext = "be brief"\n'
MATRIX = {
    "unknown key": ('[matrix]\ncases = "c.jsonl"\ncolour = 1\n' + PROMPT, 3, "matrix", "colour"),
    "wrong type": ('[matrix]\ncases = "c.jsonl"\nrepeats = "x"\n' + PROMPT, 3, "matrix", "repeats"),
    "out of bound": ('[matrix]\ncases = "c.jsonl"\nalpha = 2\n' + PROMPT, 3, "matrix", "alpha"),
    "not a table": (
        '[matrix]\ncases = "c.jsonl"\n' + PROMPT + "[baselines]\nb = 1\n",
        7,
        "baselines.b",
        "",
    ),
}


def _expected(path: Path, line: int, table: str, key: str) -> str:
    return f"{path}:{line}: [{table}] " + (f"{key}: " if key else "must be a table")


def _fault(tmp_path: Path, text: str, load) -> str:
    path = tmp_path / "f.toml"
    path.write_text(text)
    with pytest.raises(AssayError) as err:
        load(path)
    return str(err.value)


@pytest.mark.parametrize("kind", sorted(SYSTEMS))
def test_systems_faults_name_file_line_table_key(tmp_path: Path, kind: str) -> None:
    text, line, table, key = SYSTEMS[kind]
    message = _fault(tmp_path, text, load_config)
    assert _expected(tmp_path / "f.toml", line, table, key) in message, message


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_models_faults_name_file_line_table_key(tmp_path: Path, kind: str) -> None:
    text, line, table, key = MODELS[kind]
    message = _fault(tmp_path, text, lambda p: get_model("m", p))
    assert _expected(tmp_path / "f.toml", line, table, key) in message, message


@pytest.mark.parametrize("kind", sorted(MATRIX))
def test_matrix_faults_name_file_line_table_key(tmp_path: Path, kind: str) -> None:
    text, line, table, key = MATRIX[kind]
    message = _fault(tmp_path, text, load_matrix)
    assert _expected(tmp_path / "f.toml", line, table, key) in message, message


def _cli(capsys, *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


def test_the_cli_exits_2_with_the_same_wording(tmp_path: Path, capsys) -> None:
    config = tmp_path / "assay.toml"
    config.write_text(SYSTEMS["wrong type"][0])
    code, text = _cli(capsys, "validate", str(config))
    assert code == 2 and f"{config}:3: [systems.s] k1: " in text, text
    matrix = tmp_path / "matrix.toml"
    matrix.write_text(MATRIX["out of bound"][0])
    code, text = _cli(capsys, "matrix", str(matrix))
    assert code == 2 and f"{matrix}:3: [matrix] alpha: " in text, text
    assert "Traceback" not in text
