"""The local OpenAI-compatible stub server (tests/llm_stub.py), one per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from llm_stub import StubServer


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def model_toml(stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An assay.toml declaring models on the stub, the key and model id from the environment."""
    monkeypatch.setenv("STUB_KEY", "sk-test-secret-123")
    monkeypatch.setenv("STUB_MODEL", "stub-small")
    path = tmp_path / "assay.toml"
    path.write_text(
        f"""
[models.stub]
base_url = "{stub.base_url}"
model = "${{STUB_MODEL}}"
api_key = "${{STUB_KEY}}"
input_price = 1.0
output_price = 2.0
concurrency = 4
timeout = 5

[models.stubtext]
base_url = "{stub.base_url}"
model = "stub-text"
structured = "text"
input_price = 1.0
output_price = 2.0

[models.stubobject]
base_url = "{stub.base_url}"
model = "stub-object"
structured = "json_object"
""",
        encoding="utf-8",
    )
    return path
