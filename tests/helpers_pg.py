"""A fresh PostgreSQL schema per test, on the server ASSAY_TEST_PG_URL names (skipped without).

`.ci/run` starts the server (`.ci/start-postgres`); elsewhere the tests that need it
report themselves skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

PG_ENV = "ASSAY_TEST_PG_URL"


def pg_schema_url(prefix: str = "assay_t") -> Iterator[str]:
    """Yield a URL whose search_path is a new schema; the schema is dropped afterwards."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need {PG_ENV} (run .ci/start-postgres and export its URL)")
    from sqlalchemy import create_engine, text

    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, connect_args={"connect_timeout": 10})  # a dead server fails fast
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
