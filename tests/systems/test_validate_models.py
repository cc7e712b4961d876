"""`assay validate` checks [models.NAME] tables as the commands read them: a table the
model-client factory refuses is a validation problem (file, line, table, key), and a
table it accepts validates OK."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli.app import main
from assay.core.errors import UsageError
from assay.providers.client import open_client

GOOD = 'base_url = "http://127.0.0.1:9/v1"\nmodel = "m-1"\n'
BAD = {
    "temperature = 5": "temperature",
    'colour = "red"': "colour",
    "max_tokens = 0": "max_tokens",
    'structured = "xml"': "structured",
    'input_price = "cheap"': "input_price",
    'api_key = "${ASSAY_TEST_UNSET_KEY_VAR}"': "ASSAY_TEST_UNSET_KEY_VAR",
}


def _validate(path: Path, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(path)])
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "assay.toml"
    path.write_text(f"# models\n\n[models.judge]\n{body}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("line", sorted(BAD))
def test_a_table_the_commands_refuse_does_not_validate(
    tmp_path: Path, capsys, monkeypatch, line: str
) -> None:
    monkeypatch.delenv("ASSAY_TEST_UNSET_KEY_VAR", raising=False)
    path = _config(tmp_path, GOOD + line)
    with pytest.raises(UsageError):  # what judge llm, generate and matrix build on
        open_client("judge", config_path=path, no_cache=True)
    code, text = _validate(path, capsys)
    assert code == 2, text
    at = 6 if "ASSAY_TEST_UNSET" not in line else 3  # the key's line; an unset ${VAR}: the table
    assert f"{path}:{at}: [models.judge] " in text and BAD[line] in text, text
    assert "OK" not in text and "unexpected" not in text, text


def test_a_table_the_commands_accept_validates(tmp_path: Path, capsys) -> None:
    path = _config(tmp_path, GOOD + "temperature = 0.5\n")
    client = open_client("judge", config_path=path, no_cache=True)
    assert client is not None
    code, text = _validate(path, capsys)
    assert code == 0, text
    assert "(config): OK" in text and "judge (m-1)" in text, text
