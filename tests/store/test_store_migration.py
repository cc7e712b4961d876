"""Schema versioning: an old (version 1) store is migrated when opened."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from _store_helpers import make_result

from assay.core.errors import UsageError
from assay.store.api import open_store
from assay.store.db import ROLE_GATE_FAILED, ROLE_GATE_PASSED, SCHEMA_VERSION

#: The version-1 schema, as assay 0.1 wrote it (no config_hash, corpus_version, dirty).
V1_DDL = """
CREATE TABLE results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind VARCHAR(32) NOT NULL,
    schema_version VARCHAR(16) NOT NULL,
    system VARCHAR(200),
    judgments_name VARCHAR(200),
    judgments_version VARCHAR(80),
    created_at VARCHAR(40),
    git_commit VARCHAR(64),
    assay_version VARCHAR(40),
    payload TEXT NOT NULL
);
CREATE TABLE result_metrics (
    result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
    metric VARCHAR(200) NOT NULL,
    value FLOAT NOT NULL,
    PRIMARY KEY (result_id, metric)
);
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at DATETIME NOT NULL);
INSERT INTO schema_version VALUES (1, '2024-01-01 00:00:00');
"""


@pytest.fixture
def v1_store(tmp_path: Path) -> Path:
    """A version-1 SQLite store holding one evaluation."""
    path = tmp_path / "old.db"
    result = make_result("old-system", environment={"git_commit": "c0ffee", "git_dirty": True})
    payload = result.model_copy(
        update={"run": result.run.model_copy(update={"corpus_version": "corpus-v7"})}
    ).model_dump_json()
    con = sqlite3.connect(path)
    con.executescript(V1_DDL)
    con.execute(
        "INSERT INTO results (kind, schema_version, system, judgments_name, judgments_version,"
        " created_at, git_commit, assay_version, payload) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            "evaluation",
            "1",
            "old-system",
            "qs",
            "sha256:aaaaaaaaaaaaaaaa",
            "2024-01-01T00:00:00+00:00",
            "c0ffee",
            "0.0.9",
            payload,
        ),
    )
    for metric, value in json.loads(payload)["aggregate"].items():
        con.execute("INSERT INTO result_metrics VALUES (1, ?, ?)", (metric, value))
    con.commit()
    con.close()
    return path


def test_old_store_is_migrated(v1_store: Path) -> None:
    with open_store(f"sqlite:///{v1_store}") as store:
        [entry] = store.list()
        assert entry.system == "old-system"
        assert entry.corpus_version == "corpus-v7"  # back-filled from the payload
        assert entry.dirty is True
        assert entry.config_hash and entry.config_hash.startswith("sha256:")
        assert store.get(entry.run_id).run.name == "old-system"
        new_id = store.record(make_result("new-system"))
        assert new_id == entry.run_id + 1
    con = sqlite3.connect(v1_store)
    versions = [v for (v,) in con.execute("SELECT version FROM schema_version ORDER BY version")]
    columns = {row[1] for row in con.execute("PRAGMA table_info(results)")}
    con.close()
    assert versions == list(range(1, SCHEMA_VERSION + 1))
    assert {"config_hash", "corpus_version", "dirty", "role"} <= columns
    with open_store(f"sqlite:///{v1_store}") as store:  # opening again changes nothing
        assert store.count() == 2


def test_newer_store_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    open_store(url).close()
    con = sqlite3.connect(tmp_path / "h.db")
    con.execute("INSERT INTO schema_version VALUES (?, '2030-01-01')", (SCHEMA_VERSION + 5,))
    con.commit()
    con.close()
    with pytest.raises(UsageError, match="newer"):
        open_store(url)


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "f.db")
    con.execute("CREATE TABLE results (x INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(UsageError, match="not written by assay"):
        open_store(f"sqlite:///{tmp_path / 'f.db'}")


def _v2_store(path: Path, rows: list[tuple[str, str, str]]) -> None:
    """A version-2 SQLite store (no ``role`` column) holding ``(kind, system, payload)`` rows."""
    v2 = V1_DDL.replace(
        "    payload TEXT NOT NULL\n);",
        "    payload TEXT NOT NULL,\n    config_hash VARCHAR(80),\n"
        "    corpus_version VARCHAR(80),\n    dirty BOOLEAN\n);",
        1,
    ).replace("INSERT INTO schema_version VALUES (1, ", "INSERT INTO schema_version VALUES (2, ")
    con = sqlite3.connect(path)
    con.executescript(v2)
    for kind, system, payload in rows:
        con.execute(
            "INSERT INTO results (kind, schema_version, system, judgments_name, judgments_version,"
            " created_at, payload) VALUES (?, '1', ?, 'qs', 'sha256:aaaaaaaaaaaaaaaa', ?, ?)",
            (kind, system, json.loads(payload).get("created_at"), payload),
        )
    con.commit()
    con.close()


def _gate_payload(candidate_run_id: int, passed: bool) -> str:
    return json.dumps(
        {
            "kind": "gate",
            "schema_version": "1",
            "candidate": "sys",
            "candidate_run_id": candidate_run_id,
            "judgments_name": "qs",
            "passed": passed,
            "checks": [],
        }
    )


def test_v2_store_gets_roles_from_its_gates(tmp_path: Path) -> None:
    """Migrating 2 -> 3 marks the candidates of old gates, so ``last`` skips failed ones."""
    path = tmp_path / "v2.db"
    stamp = "2024-01-0{}T00:00:00+00:00"
    _v2_store(
        path,
        [
            ("evaluation", "sys", make_result("sys", created_at=stamp.format(1)).to_json()),
            ("evaluation", "sys", make_result("sys", created_at=stamp.format(2)).to_json()),
            ("gate", "sys", _gate_payload(2, passed=True)),
            ("evaluation", "sys", make_result("sys", created_at=stamp.format(3)).to_json()),
            ("gate", "sys", _gate_payload(4, passed=False)),
        ],
    )
    with open_store(f"sqlite:///{path}") as store:
        roles = {e.run_id: e.role for e in store.list(kind="evaluation")}
        assert roles == {1: None, 2: ROLE_GATE_PASSED, 4: ROLE_GATE_FAILED}
        assert store.last_id("sys", "qs") == 2  # run 4 failed its gate
        assert store.last_id("sys", "qs", include_failed=True) == 4
