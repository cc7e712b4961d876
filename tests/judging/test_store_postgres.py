"""The judging store on PostgreSQL: the same events, locks and export as on SQLite."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from assay import load_judgments
from assay.judging.export import export_judgments
from assay.judging.pool import PoolPair
from assay.judging.store import JudgingStore
from helpers_pg import pg_schema_url

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url():
    """A PostgreSQL judging store URL in a fresh schema."""
    yield from pg_schema_url("assay_j")


def test_postgres_store_concurrent_writers_undo_and_export(pg_url: str, tmp_path: Path) -> None:
    pairs = [PoolPair(f"q{i % 3}", f"query {i % 3}", f"d{i}", {"r": 1}) for i in range(12)]
    JudgingStore(pg_url).setup(pairs, ["alice", "bob"], overlap=2)
    errors: list[BaseException] = []

    def grade(name: str, value: str) -> None:
        s = JudgingStore(pg_url)
        try:
            for pid in s.assigned(name)[name]:
                s.act(name, pid, value)
                s.act(name, pid, value)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            s.close()

    threads = [threading.Thread(target=grade, args=a) for a in (("alice", "2"), ("bob", "2"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    s = JudgingStore(pg_url)
    assert len(s.events()) == 48
    for who in ("alice", "bob"):
        assert [e.previous for e in s.events(who)] == [None, "2"] * 12
    undone = s.undo("alice")
    assert undone is not None and undone.previous == "2" and undone.value == "2"
    summary = export_judgments(s, tmp_path / "human.jsonl")
    js = load_judgments(tmp_path / "human.jsonl")
    assert summary.version == js.version and len(js.qrels) == 12
    assert set(js.qrels["grade"]) == {2}
    s.close()
