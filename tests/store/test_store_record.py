"""Store basics on SQLite and PostgreSQL: record, list, get, last, round trip to reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from _store_helpers import make_result

import assay
from assay.core.errors import UsageError
from assay.results.models import EvaluationResult
from assay.store.api import open_store, resolve_url


def test_record_get_list_last(store_url: str) -> None:
    with open_store(store_url) as store:
        a1 = store.record(make_result("alpha", created_at="2024-01-01T00:00:00+00:00"))
        b1 = store.record(make_result("beta", judgments="other"))
        a2 = store.record(
            make_result("alpha", tag="second", created_at="2024-02-01T00:00:00+00:00")
        )
        assert len({a1, b1, a2}) == 3
        assert store.count() == 3
        got = store.get(a2)
        assert isinstance(got, EvaluationResult)
        assert got.per_query[0]["text"].endswith("second")
        alpha = store.list(system="alpha")
        assert [e.run_id for e in alpha] == [a1, a2]
        assert alpha[0].metrics["nDCG@10"] == pytest.approx(alpha[0].metrics["nDCG@10"])
        assert set(alpha[0].metrics) == {"nDCG@10", "RR"}
        assert alpha[0].git_commit == "abc123" and alpha[0].dirty is False
        assert alpha[0].config_hash and alpha[0].config_hash.startswith("sha256:")
        assert [e.run_id for e in store.list(judgments="other")] == [b1]
        assert [e.run_id for e in store.list(judgments="sha256:aaaaaaaaaaaaaaaa")] == [
            a1,
            a2,
            b1,
        ]  # by time
        assert store.list(metric="P@5") == []
        assert len(store.list(metric="RR")) == 3
        last = store.last(system="alpha", judgments="qs")
        assert last is not None and last.per_query[0]["text"].endswith("second")
        assert store.last(system="nobody") is None
        with pytest.raises(UsageError, match="no run 9999"):
            store.get(9999)


def test_round_trip_equals_original_report(store_url: str, tmp_path: Path) -> None:
    from assay.report.evaluation import render_json, render_markdown

    original = make_result("rt", tag="round trip")
    path = tmp_path / "result.json"
    path.write_text(original.to_json(), encoding="utf-8")
    from_file = EvaluationResult.from_file(path)
    with open_store(store_url) as store:
        back = store.get(store.record(from_file))
    assert render_markdown(back) == render_markdown(original)
    assert render_json(back) == render_json(original)


def test_round_trip_real_evaluation(tmp_path: Path) -> None:
    from assay.judgments.models import JudgmentSet
    from assay.procedures.evaluation import evaluate
    from assay.report.evaluation import render_markdown

    js = JudgmentSet.from_records(
        [
            {"query_id": f"q{i}", "text": f"t{i}", "language": "en" if i % 2 else "de"}
            for i in range(6)
        ],
        {f"q{i}": {f"d{i}": 1, f"e{i}": 2} for i in range(6)},
        name="tiny",
    )
    run = {f"q{i}": [f"x{i}", f"d{i}", f"e{i}"][i % 3 :] for i in range(6)}
    result = evaluate(
        js,
        run,
        ["nDCG@10", "RR", "R@5"],
        by="language",
        evaluation=assay.EvaluationOptions(name="tiny-run"),
    )
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        back = store.get(store.record(result))
    assert back == result
    assert render_markdown(back, digits=3) == render_markdown(result, digits=3)


def test_other_kinds_and_bad_input(sqlite_url: str) -> None:
    with open_store(sqlite_url) as store:
        rid = store.record({"kind": "custom", "system": "x", "aggregate": {"m": 1.5}})
        assert store.get(rid) == {"kind": "custom", "system": "x", "aggregate": {"m": 1.5}}
        entry = store.list(kind="custom")[0]
        assert entry.system == "x" and entry.metrics == {"m": 1.5}
        with pytest.raises(UsageError):
            store.record({"no": "kind"})
        with pytest.raises(UsageError):
            store.record(42)
        with pytest.raises(UsageError, match="whole number"):
            store.get("abc")


def test_default_url_env_and_plain_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    assert resolve_url() == "sqlite:///.assay/history.db"
    assert resolve_url("x/h.db") == "sqlite:///x/h.db"
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{tmp_path / 'env.db'}")
    assert resolve_url() == f"sqlite:///{tmp_path / 'env.db'}"
    assert resolve_url("sqlite:///given.db") == "sqlite:///given.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE")
    with open_store() as store:
        store.record(make_result())
    assert (tmp_path / ".assay" / "history.db").is_file()


def test_sqlite_is_wal(sqlite_url: str) -> None:
    from sqlalchemy import text

    with open_store(sqlite_url) as store, store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert int(conn.execute(text("PRAGMA busy_timeout")).scalar()) >= 1000


def test_unreachable_store_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot open"):
        open_store("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(UsageError):
        open_store("notadb+nodriver://x")
