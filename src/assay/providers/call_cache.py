"""A cache of model answers (SQLite), so that a rerun costs nothing.

The key is everything that determines an answer: endpoint, model id,
messages, parameters (temperature, max tokens, structured-output mode), the
answer schema and the sample index. It is hashed (SHA-256) before it is
stored, and holds no API key or header. Only successful answers are stored:
errors are never cached. A cached answer keeps the latency, tokens and cost
of the call that produced it.

The file is ``model-calls.sqlite`` in ``--cache-dir``, else in
``$ASSAY_CACHE_DIR`` (the setting the run cache honours), else in
``.assay/cache/`` beside the run cache.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from assay.core.hashing import cache_key
from assay.io.cachedir import CACHE_ENV
from assay.io.textio import parse_json

CACHE_FILE = "model-calls.sqlite"
DEFAULT_DIR = Path(".assay") / "cache"
_SCHEMA = 1


def default_model_cache_dir() -> Path:
    """``$ASSAY_CACHE_DIR`` if set (see :mod:`assay.io.cachedir`), else ``.assay/cache``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else DEFAULT_DIR


def call_key(
    *,
    endpoint: str,
    model: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    schema: dict[str, Any] | None,
    sample: int,
) -> str:
    """The cache key of one call: 64 hex digits of SHA-256 over its canonical JSON."""
    blob = json.dumps(
        {
            "schema_version": _SCHEMA,
            "endpoint": endpoint,
            "model": model,
            "messages": messages,
            "params": params,
            "schema": schema,
            "sample": sample,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return cache_key(blob, 64)  # 64 digits: the keys of caches already on disk


#: Held while a cache connection is opened: two connections of one process that
#: switch a new file to WAL and create its table at once can deadlock in SQLite,
#: which then fails one of them at once with "database is locked" (the matrix
#: runner's workers open their caches together).
_OPENING = threading.Lock()


class CallCache:
    """Answers by key; safe to share between threads."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_model_cache_dir()
        self.path = self.directory / CACHE_FILE
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            with _OPENING:  # see _OPENING
                if self._conn is None:
                    self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        """A connection to the cache file, in WAL mode, its table created."""
        self.directory.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL stays consistent on a crash
        conn.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, answer TEXT NOT NULL,"
            " created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
        )
        conn.commit()
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer of ``key``, or ``None`` (an unreadable entry is a miss)."""
        with self._lock:
            row = self._db().execute("SELECT answer FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            answer = parse_json(row[0])
        except json.JSONDecodeError:
            return None
        return answer if isinstance(answer, dict) else None

    def put(self, key: str, answer: dict[str, Any]) -> None:
        """Store a successful answer under ``key``."""
        blob = json.dumps(answer, ensure_ascii=False, sort_keys=True)
        with self._lock:
            db = self._db()
            db.execute("INSERT OR REPLACE INTO calls (key, answer) VALUES (?, ?)", (key, blob))
            db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db().execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
