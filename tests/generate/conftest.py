"""Query-generation tests use the stub server of tests/llm_stub.py and one writer model on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_stub import StubServer, stub

__all__ = ["stub", "writer_toml"]


@pytest.fixture
def writer_toml(stub: StubServer, tmp_path: Path) -> Path:
    path = tmp_path / "assay.toml"
    path.write_text(
        f'[models.writer]\nbase_url = "{stub.base_url}"\nmodel = "stub-writer"\n'
        "input_price = 1.0\noutput_price = 2.0\n",
        encoding="utf-8",
    )
    return path
