"""The local stub model server (one per module) and the environment matrix files read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from llm_stub import StubServer


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_SMALL", "stub-small")
    monkeypatch.setenv("STUB_KEY", "sk-matrix-secret-42")
    monkeypatch.setenv("STUB_SMALL_IN", "2.0")
