"""The local stub model server and an assay.toml declaring a model on it."""

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
def model_toml(stub: StubServer, tmp_path: Path) -> Path:
    path = tmp_path / "assay.toml"
    path.write_text(
        f'[models.writer]\nbase_url = "{stub.base_url}"\nmodel = "stub-writer"\n'
        "input_price = 1.0\noutput_price = 2.0\n",
        encoding="utf-8",
    )
    return path
