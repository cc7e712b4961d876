"""Store fixtures: a SQLite store per test, and PostgreSQL when ASSAY_TEST_PG_URL is set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_pg import pg_schema_url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite store in a fresh folder (the folder itself is created by open_store)."""
    return f"sqlite:///{tmp_path / 'sub' / 'history.db'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL store in a fresh schema; skipped without ASSAY_TEST_PG_URL."""
    yield from pg_schema_url()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Both backends: SQLite always, PostgreSQL when ASSAY_TEST_PG_URL is set."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'history.db'}"
    else:
        yield from pg_schema_url()
