"""Matrix tests use the stub server of tests/llm_stub.py and the environment matrix files read."""

from __future__ import annotations

import pytest

from llm_stub import stub

__all__ = ["env", "stub"]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_SMALL", "stub-small")
    monkeypatch.setenv("STUB_KEY", "sk-matrix-secret-42")
    monkeypatch.setenv("STUB_SMALL_IN", "2.0")
