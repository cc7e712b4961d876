"""Store fixtures: a SQLite store per test, and PostgreSQL when ASSAY_TEST_PG_URL is set."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ENV = "ASSAY_TEST_PG_URL"


def _pg_schema_url() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test; its URL sets the search_path to it."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need {PG_ENV} (run .ci/start-postgres and export its URL)")
    from sqlalchemy import create_engine, text

    schema = f"assay_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite store in a fresh folder (the folder itself is created by open_store)."""
    return f"sqlite:///{tmp_path / 'sub' / 'history.db'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL store in a fresh schema; skipped without ASSAY_TEST_PG_URL."""
    yield from _pg_schema_url()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Both backends: SQLite always, PostgreSQL when ASSAY_TEST_PG_URL is set."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'history.db'}"
    else:
        yield from _pg_schema_url()
