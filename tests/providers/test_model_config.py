"""The typed configuration of model endpoints and matrix files, and the one client factory."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.core.errors import InputError, UsageError
from assay.core.limits import MAX_RESPONSE_BYTES, MAX_RETRIES
from assay.judges.spec import JUDGE_CONFIG_MODELS
from assay.matrix.config import MATRIX_CONFIG_MODELS
from assay.providers.model_config import (
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_TIMEOUT,
    MODEL_CONFIG_MODELS,
    ModelConfig,
    get_model,
    model_from_table,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"
BASE = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


@pytest.mark.parametrize(
    "model",
    [
        *MODEL_CONFIG_MODELS.values(),
        *MATRIX_CONFIG_MODELS.values(),
        *JUDGE_CONFIG_MODELS.values(),
        ModelConfig,
    ],
)
def test_every_field_has_a_description_and_a_schema(model) -> None:
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name}"
    schema = model.model_json_schema()
    assert schema["additionalProperties"] is False  # unknown keys are refused


def test_defaults_are_the_documented_ones() -> None:
    cfg = model_from_table("m", dict(BASE))
    assert cfg.timeout == 60 and cfg.retries == 2 and cfg.concurrency == 4
    assert cfg.max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES == MAX_RESPONSE_BYTES


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_timeout_is_accepted_exactly_when_finite_and_in_range(value: float) -> None:
    ok = math.isfinite(value) and 0 < value <= MAX_TIMEOUT
    try:
        cfg = model_from_table("m", {**BASE, "timeout": value})
    except UsageError as exc:
        assert not ok, value
        assert "[models.m] timeout" in str(exc) and "allowed keys" in str(exc)
    else:
        assert ok and cfg.timeout == value


@given(st.one_of(st.integers(-5, 120), st.booleans(), st.text(max_size=5)))
def test_retries_are_whole_numbers_up_to_the_one_bound(value) -> None:
    number = value
    if isinstance(value, str):
        try:
            number = float(value)  # numbers may come as text from ${VAR}
        except ValueError:
            number = None
    ok = (
        isinstance(number, int | float)
        and not isinstance(number, bool)
        and math.isfinite(number)
        and float(number).is_integer()
        and 0 <= number <= MAX_RETRIES  # the systems' bound too: one constant
    )
    try:
        cfg = model_from_table("m", {**BASE, "retries": value})
    except UsageError:
        assert not ok, value
    else:
        assert ok, value
        assert cfg.retries == int(float(value))


def test_an_env_secret_in_a_bad_value_is_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_URL", "ftp://user:hunter2-secret@host/v1")
    with pytest.raises(UsageError) as err:
        model_from_table("m", {"base_url": "${MODEL_URL}", "model": "m"}, source="a.toml")
    assert "hunter2-secret" not in str(err.value)
    assert "a.toml: [models.m] base_url: must be an http:// or https:// URL" in str(err.value)
    assert "${MODEL_URL}" in str(err.value)


MODEL_TABLE = '[models.m]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'


def test_a_model_is_found_whatever_a_system_table_holds(tmp_path: Path) -> None:
    """The providers read the file's shape, not the keys of the systems' tables (the
    systems layer checks those when a system is built or the file validated)."""
    path = tmp_path / "assay.toml"
    path.write_text('[systems.s]\ntype = "bm25"\ncolour = 3\n\n' + MODEL_TABLE)
    assert get_model("m", path).model == "m"
    path.write_text("[systems]\ns = 3\n\n" + MODEL_TABLE)
    with pytest.raises(InputError, match=re.escape(f"{path}:2: [systems.s] must be a table")):
        get_model("m", path)


def test_credential_headers_are_registered_secrets() -> None:
    from assay.core.redact import redact_text

    model_from_table("m", {**BASE, "headers": {"X-Api-Key": "org-key-5566"}})
    assert redact_text("the model said org-key-5566") == "the model said <redacted>"


def test_model_clients_are_built_by_one_factory() -> None:
    """Judges, generate and the matrix get clients from providers.client.open_client.

    The call cache is opened there too, and once more by the embeddings client of
    ``endpoint:NAME`` vector models (its own cache folder, below the providers layer).
    """

    def holding(pattern: str) -> set[str]:
        return {
            p.relative_to(SRC).as_posix()
            for p in SRC.rglob("*.py")
            if re.search(pattern, p.read_text("utf-8"))
        }

    assert holding(r"\bChatClient\(") == {"providers/client.py"}
    assert holding(r"\bCallCache\(") == {"providers/client.py", "systems/endpoint_embeddings.py"}


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        ("you sent Bearer abcdefghijklmnop123", "Bearer <redacted>", "abcdefghijklmnop123"),
        ("key sk-proj-AbCdEfGhIjKlMnOpQrSt01 here", "key <redacted> here", "sk-proj-AbCd"),
        ("https://bob:hunter2pw@example.org/v1", "https://bob:<redacted>@example.org", "hunter2"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic <redacted>", "dXNlcjpwYXNz"),
        ("the bearer of news, max_tokens=512", "the bearer of news, max_tokens=512", "<redacted>"),
    ],
)
def test_literal_credentials_in_model_content_are_redacted(text: str, kept: str, gone: str) -> None:
    from assay.core.redact import redact_text

    out = redact_text(text)
    assert kept in out and gone not in out


def test_schema_lets_numbers_come_from_the_environment() -> None:
    """Editors validating assay.toml accept input_price = "${PRICE}" as the loader does."""
    import tomllib

    from assay.providers.model_config import ENV_TEMPLATE, ModelTable

    props = ModelTable.model_json_schema()["properties"]
    table = tomllib.loads((Path(__file__).resolve().parents[2] / "examples" / "matrix" /
                           "matrix-models.toml").read_text())["models"]["small"]  # fmt: skip
    for key, value in table.items():
        numeric = props[key].get("anyOf", [{}])[0].get("type") in ("number", "integer")
        if isinstance(value, str) and numeric:
            assert re.match(ENV_TEMPLATE, value), (key, value)
            assert {"type": "string", "pattern": ENV_TEMPLATE} in props[key]["anyOf"]
    assert props["timeout"]["anyOf"][0] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 3600,
    }
