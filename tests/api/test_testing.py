"""``assay.testing.assert_gate``: the gate in process, as an assertion; the example file runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.core.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
JUDGMENTS = EXAMPLE / "questions.csv"
CONFIG = EXAMPLE / "assay.toml"


def test_import_assay_does_not_import_testing() -> None:
    code = "import sys, assay; assert 'assay.testing' not in sys.modules; import assay.testing"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The keyword system's run and evaluation, and the worse names-only run."""
    from assay.cli.app import main

    folder = tmp_path_factory.mktemp("assert_gate")
    out = {}
    for system, name in (("keyword", "base"), ("keyword-names-only", "worse")):
        out[name] = folder / f"{name}.trec"
        with pytest.raises(SystemExit) as exc:
            main(["run", str(JUDGMENTS), "-s", system, "--config", str(CONFIG),
                  "-o", str(out[name]), "--no-progress", "--no-cache"])  # fmt: skip
        assert exc.value.code in (0, None)
    out["baseline"] = folder / "baseline.json"
    result = assay.evaluate(JUDGMENTS, out["base"], ["nDCG@10", "RR"])
    out["baseline"].write_text(result.to_json())
    return out


def _cli_gate(runs: dict[str, Path], candidate: Path, capsys) -> dict:
    from assay.cli.app import main

    argv = ["gate", str(JUDGMENTS), str(candidate), "-b", str(runs["baseline"]), "-m",
            "nDCG@10", "-m", "RR", "--margin", "0.01", "-f", "json", "--no-record"]  # fmt: skip
    with pytest.raises(SystemExit):
        main(argv)
    return json.loads(capsys.readouterr().out)


def test_passes_and_fails_as_the_command_does(runs: dict[str, Path], capsys) -> None:
    from assay.testing import assert_gate

    verdicts = []
    for name in ("base", "worse"):
        cli = _cli_gate(runs, runs[name], capsys)
        verdicts.append(cli["passed"])
        try:
            result = assert_gate(JUDGMENTS, runs[name], baseline=runs["baseline"],
                                 metrics=["nDCG@10", "RR"], margin=0.01)  # fmt: skip
        except AssertionError as exc:
            assert not cli["passed"], name
            message = str(exc)
            failed = [c for c in cli["checks"] if c["gated"] and not c["passed"]]
            assert failed and all(f"| {c['metric']} |" in message for c in failed)
            assert "| Metric |" in message and "| Baseline | Candidate | Delta |" in message
            assert "**regression**" in message
        else:
            assert cli["passed"], name
            assert [c.candidate_mean for c in result.checks] == [
                c["candidate_mean"] for c in cli["checks"]
            ]
    assert capsys.readouterr().out == ""  # silent
    assert verdicts == [True, False]  # both ways were exercised


def test_a_system_by_name_and_a_callable(runs: dict[str, Path]) -> None:
    from assay.testing import assert_gate

    result = assert_gate(JUDGMENTS, "keyword", config=CONFIG, baseline=runs["baseline"],
                         metrics=["nDCG@10"], no_cache=True)  # fmt: skip
    assert result.passed and result.candidate == "keyword"
    with pytest.raises(AssertionError, match="nDCG@10"):
        assert_gate(JUDGMENTS, "keyword-names-only", config=CONFIG, baseline=runs["baseline"],
                    metrics=["nDCG@10"], no_cache=True)  # fmt: skip
    with pytest.raises(AssertionError, match=r"\| all queries \| RR \|"):
        assert_gate(JUDGMENTS, lambda query, k: [], baseline=runs["baseline"], metrics=["RR"])


def test_bad_input_is_an_error_not_a_failed_assertion(runs: dict[str, Path]) -> None:
    from assay.testing import assert_gate

    with pytest.raises(UsageError, match="config"):
        assert_gate(JUDGMENTS, runs["base"], config=CONFIG, baseline=runs["baseline"])
    with pytest.raises(assay.AssayError):
        assert_gate(JUDGMENTS, "missing.trec", baseline=runs["baseline"])


def test_the_example_test_file_runs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "ASSAY_RECORD": "0",
           "ASSAY_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         "-o", "addopts=", str(ROOT / "examples" / "pytest")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
