"""``assay history``: runs over time, judgment-set version changes marked, HTML trend chart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _store_helpers import make_result

from assay.cli.app import main
from assay.store.api import open_store
from assay.store.history import build_history


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


@pytest.fixture
def filled(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        store.record(make_result("prod", created_at="2024-01-01T00:00:00+00:00"))
        store.record(make_result("prod", values=[0.5] * 20, created_at="2024-02-01T00:00:00+00:00"))
        store.record(
            make_result(
                "prod",
                version="sha256:bbbbbbbbbbbbbbbb",
                values=[0.9] * 20,
                created_at="2024-03-01T00:00:00+00:00",
            )
        )
        store.record(make_result("other", created_at="2024-01-15T00:00:00+00:00"))
    return url


def test_version_change_is_marked(filled: str) -> None:
    with open_store(filled) as store:
        report = build_history(store.list(system="prod"), store="x")
    assert [r.version_changed for r in report.rows] == [False, False, True]
    assert [r.segment for r in report.rows] == [0, 0, 1]
    assert report.version_changes == 1
    assert sorted(report.metrics) == ["RR", "nDCG@10"]


def test_history_json(filled: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["history", "--store", filled, "--system", "prod", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "history"
    assert [r["metrics"]["nDCG@10"] for r in data["rows"]][1:] == [0.5, 0.9]
    assert data["rows"][2]["version_changed"] is True


def test_history_table_and_filters(filled: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["history", "--store", filled, "-m", "nDCG@10"]) == 0
    out = capsys.readouterr().out
    assert "other" in out and "prod" in out
    assert "not comparable" in out
    assert _run(["history", "--store", filled, "--system", "nobody"]) == 0
    assert "no results" in capsys.readouterr().out


def test_history_html_is_self_contained(filled: str, tmp_path: Path) -> None:
    out = tmp_path / "h.html"
    assert _run(["history", "--store", filled, "-f", "html", "-o", str(out)]) == 0
    text = out.read_text()
    assert "* plotly.js v" in text  # the library itself is inlined
    assert "<script src" not in text
    assert "Plotly.newPlot" in text
    assert "judgment-set version changed" in text


def test_history_bad_format(filled: str) -> None:
    assert _run(["history", "--store", filled, "-f", "pdf"]) == 2


@pytest.fixture
def mixed(tmp_path: Path) -> str:
    """Evaluations with eight metrics, a failed gate and a comparison-like result."""
    from assay.procedures.gating import run_gate

    url = f"sqlite:///{tmp_path / 'mixed.db'}"
    many = ["nDCG@10", "RR", "P@5", "P@10", "R@5", "R@10", "R@100", "MAP"]
    with open_store(url) as store:
        for name, value in (("prod", 0.8), ("prod", 0.7)):
            result = make_result(name, values=[value] * 20)
            agg = {m: value for m in many}
            store.record(result.model_copy(update={"metrics": many, "aggregate": agg}))
        good, worse = make_result("prod", values=[0.8] * 20), make_result("prod", values=[0.1] * 20)
        store.record_gate(worse, run_gate(worse, good, ["nDCG@10"], n_resamples=200))
    return url


def test_history_default_metrics_are_capped_with_a_note(mixed: str) -> None:
    with open_store(mixed) as store:
        evals = build_history(store.list(kind="evaluation"), store="x")
        everything = build_history(store.list(kind=None), store="x")
    assert len(evals.metrics) == 2 and set(evals.metrics) == {"nDCG@10", "RR"}  # common ones
    assert evals.metrics_note and evals.metrics_note.startswith("showing 2 of 8 metrics")
    assert everything.metrics == ["nDCG@10"]  # the gate has no RR
    assert everything.metrics_available == 10  # 8 + the gate's "delta nDCG@10" and "passed"
    with open_store(mixed) as store:
        first_two = store.list(kind="evaluation")[:2]
    capped = build_history(first_two, store="x")
    assert len(capped.metrics) == 6 and "first 6" in (capped.metrics_note or "")


def test_history_all_table_is_readable_when_piped(
    mixed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(["history", "--store", mixed, "--kind", "all"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("run"))
    for col in ("created (UTC)", "kind", "system", "judgments", "version", "git", "nDCG@10"):
        assert col in header  # one header line: not squeezed to 80 columns
    assert "\x1b" not in out  # no colour or control codes on a pipe
    assert "…" not in out  # no cell cut to an ellipsis
    assert "gate: FAIL" in out and "(failed gate)" in out
    assert "sha256:" not in out and "aaaaaaaaaaaaaaaa" not in out  # hashes shortened
    assert "showing " in out and "choose others with -m" in out
    assert _run(["history", "--store", mixed, "--kind", "gate", "-m", "passed"]) == 0
    out = capsys.readouterr().out
    gate_line = next(line for line in out.splitlines() if "gate: FAIL" in line)
    assert gate_line.rstrip().endswith("no") and "0.0000" not in gate_line
