"""Baseline roles (a failed gate's candidate is never ``last``) and quiet recording."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from _store_helpers import make_result

from assay.core.errors import UsageError
from assay.procedures.gating import run_gate
from assay.store.api import open_store, record_gate_quietly, record_quietly
from assay.store.db import ROLE_GATE_FAILED, ROLE_GATE_PASSED, SCHEMA_VERSION


def test_last_skips_failed_gate_candidates(store_url: str) -> None:
    good = make_result("sys", values=[0.8] * 20)
    worse = make_result("sys", values=[0.2] * 20, tag="worse")
    same = make_result("sys", values=[0.8] * 20, tag="same")
    with open_store(store_url) as store:
        base_id = store.record(good)
        failed = run_gate(worse, good, ["nDCG@10"], n_resamples=200)
        assert not failed.passed
        recorded = store.record_gate(worse, failed)
        assert recorded.candidate_run_id is not None
        assert store.last_id("sys", "qs") == base_id
        assert store.last_id("sys", "qs", include_failed=True) == recorded.candidate_run_id
        passed = run_gate(same, good, ["nDCG@10"], n_resamples=200)
        assert passed.passed
        ok = store.record_gate(same, passed)
        assert store.last_id("sys", "qs") == ok.candidate_run_id
        got = store.last("sys", "qs")
        assert got is not None and got.per_query[0]["text"].endswith("same")
        roles = {e.run_id: e.role for e in store.list(kind="evaluation")}
        gate_rows = store.list(kind="gate")
    assert roles == {
        base_id: None,
        recorded.candidate_run_id: ROLE_GATE_FAILED,
        ok.candidate_run_id: ROLE_GATE_PASSED,
    }
    assert [g.metrics["passed"] for g in gate_rows] == [0.0, 1.0]


def test_record_quietly_returns_the_run_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    run_id = record_quietly(make_result("sys"), url)
    assert isinstance(run_id, int)
    with open_store(url) as store:
        assert store.get(run_id).run.name == "sys"


def _broken_stores(tmp_path: Path) -> list[str]:
    """Stores that cannot be opened: below a file, newer schema, a missing driver."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    newer = tmp_path / "newer.db"
    open_store(f"sqlite:///{newer}").close()
    con = sqlite3.connect(newer)
    con.execute("INSERT INTO schema_version VALUES (?, '2030-01-01')", (SCHEMA_VERSION + 1,))
    con.commit()
    con.close()
    return [
        f"sqlite:///{blocker / 'sub' / 'h.db'}",
        f"sqlite:///{newer}",
        "nosuchdb://user:secret@host/db",
    ]


def test_record_quietly_warns_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for url in _broken_stores(tmp_path):
        assert record_quietly(make_result("sys"), url) is None
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.splitlines()
        assert len(lines) == 1, captured.err
        assert lines[0].startswith("assay: warning: the result was not recorded in ")
        assert "secret" not in lines[0]


def test_record_gate_quietly_keeps_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, worse = make_result("sys", values=[0.8] * 20), make_result("sys", values=[0.2] * 20)
    gate = run_gate(worse, good, ["nDCG@10"], n_resamples=200)
    url = _broken_stores(tmp_path)[0]
    assert record_gate_quietly(worse, gate, url) == gate
    assert "not recorded" in capsys.readouterr().err


def test_record_quietly_propagates_other_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot record"):
        record_quietly(object(), f"sqlite:///{tmp_path / 'h.db'}")


def test_default_store_opens_light(tmp_path: Path) -> None:
    """``open_store()`` in a fresh folder: creates .assay/ (git-ignored), loads no heavy module."""
    code = (
        "import json, sys\n"
        "from assay.store.api import open_store\n"
        "with open_store() as s: n = s.count()\n"
        "heavy = ('numpy', 'scipy', 'pandas', 'pyarrow', 'rich', 'typer', 'plotly')\n"
        "print(json.dumps([n, sorted({m.split('.')[0] for m in sys.modules} & set(heavy))]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_STORE"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [0, []]
    assert (tmp_path / ".assay" / "history.db").is_file()
    assert (tmp_path / ".assay" / ".gitignore").read_text().splitlines()[-1] == "*"
