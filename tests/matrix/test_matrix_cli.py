"""``assay matrix`` end to end: the offline example, result file, store and ``assay report``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.errors import InputError, UsageError
from assay.matrix import MatrixResult, load_matrix
from assay.store.api import open_store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix"


def _assay(*args: str, cwd: Path, env: dict[str, str] | None = None):
    full = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=full,
    )


def test_offline_example_end_to_end(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'history.db'}"
    out = tmp_path / "matrix.json"
    run = _assay(
        "matrix",
        str(EXAMPLE / "matrix.toml"),
        "-o",
        str(out),
        "-o",
        "-",
        "--store",
        store,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "strict/eager insufficient: answered, expected declined" in run.stdout
    assert "baselines are Python functions, not models" in run.stdout
    result = MatrixResult.from_file(out)
    assert result.variant("strict/extractive").pass_rate == 1.0
    assert result.variant("strict/eager").pass_rate == pytest.approx(2 / 3)
    assert result.usage.cost == 0.0 and result.repeats == 3
    with open_store(store) as st:
        (entry,) = st.list(kind="matrix")
    assert entry.system == "grounded-answers-offline"
    assert entry.metrics["pass_rate strict/eager"] == pytest.approx(2 / 3)
    assert entry.metrics["pass_rate strict/extractive"] == 1.0
    md = _assay("report", str(out), "-f", "markdown", cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    assert "| insufficient | insufficient evidence | 3/3 | 0/3 | 3/3 | 0/3 |" in md.stdout
    html = _assay("report", str(out), "-o", str(tmp_path / "m.html"), cwd=tmp_path)
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert '<table id="grid">' in page and 'id="cell-1-1"' in page  # the grid, a cell below
    table = _assay("report", str(out), cwd=tmp_path)
    assert "passing repeats per cell" in table.stdout


def test_result_is_recorded_and_read_back(tmp_path: Path) -> None:
    from assay.matrix import run_matrix

    result = run_matrix(load_matrix(EXAMPLE / "matrix.toml"))
    with open_store(f"sqlite:///{tmp_path / 'h.db'}") as st:
        run_id = st.record(result)
        back = st.get(run_id)
    assert isinstance(back, MatrixResult)
    assert back.cells == result.cells and back.comparisons == result.comparisons
    data = json.loads(result.to_json())
    assert data["kind"] == "matrix" and data["aggregate"]["pass_rate strict/eager"] < 1


def test_bad_cases_name_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text(
        '{"case_id": "a", "question": "q", "documents": [], "expected_status": "answered"}\n'
        '{"case_id": "a", "question": "q", "documents": [{"id": "d"}],'
        ' "expected_status": "maybe"}\n',
        encoding="utf-8",
    )
    (tmp_path / "m.toml").write_text(
        '[matrix]\ncases = "cases.jsonl"\n[prompts.p]\ntext = "x"\n'
        '[baselines.b]\nfunction = "a.py:f"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        load_matrix(tmp_path / "m.toml")
    text = str(err.value)
    assert "cases.jsonl:2" in text and "duplicate case_id 'a'" in text
    assert "[expected_status] unknown status 'maybe'" in text and "[documents]" in text
    run = _assay("matrix", str(tmp_path / "m.toml"), cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr


def test_config_errors(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_text((EXAMPLE / "cases.jsonl").read_text(), encoding="utf-8")
    base = (
        '[matrix]\ncases = "c.jsonl"\n{}\n[prompts.p]\ntext = "x"\n'
        '[baselines.b]\nfunction = "a.py:f"\n'
    )
    (tmp_path / "m.toml").write_text(base.format('baseline = "nope/b"'), encoding="utf-8")
    with pytest.raises(UsageError, match="baseline 'nope/b' is not a variant; use one of p/b"):
        load_matrix(tmp_path / "m.toml")
    (tmp_path / "m.toml").write_text(base.format("repeats = 0"), encoding="utf-8")
    with pytest.raises(UsageError, match="repeats"):
        load_matrix(tmp_path / "m.toml")
    (tmp_path / "m.toml").write_text(base.format('assertions = ["vibes"]'), encoding="utf-8")
    with pytest.raises(UsageError, match="assertions: must be a list of contract"):
        load_matrix(tmp_path / "m.toml")


def test_real_model_example_needs_its_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMALL_MODEL", raising=False)
    with pytest.raises(UsageError, match="SMALL_MODEL is not set"):
        load_matrix(EXAMPLE / "matrix-models.toml")
    for var in ("SMALL_MODEL", "LARGE_MODEL", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, f"{var.lower()}-value")
    for var in ("SMALL", "LARGE"):
        monkeypatch.setenv(f"{var}_INPUT_COST_PER_MILLION", "0.25")
        monkeypatch.setenv(f"{var}_OUTPUT_COST_PER_MILLION", "2")
    cfg = load_matrix(EXAMPLE / "matrix-models.toml")
    assert cfg.variants() == [
        "strict/small",
        "strict/large",
        "strict/extractive",
        "plain/small",
        "plain/large",
        "plain/extractive",
    ]
    assert cfg.judge is not None and cfg.judge.config.model == "large_model-value"
    assert cfg.providers[0].config.output_price == 2.0
    assert "openai_api_key-value" not in json.dumps([p.shown() for p in cfg.providers])
