"""Same inputs, same answer: the CLI (``--format json``) and the library agree.

The inputs are the statistics example and runs written by ``assay run`` with their
sidecars (tests/data/runs); ``flaky.trec``'s sidecar lists two failed queries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import assay

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "examples" / "statistics" / "questions.csv"
CONFIG = ROOT / "examples" / "statistics" / "assay.toml"
RUNS = ROOT / "tests" / "data" / "runs"
#: Fields stamped at write time, not computed from the inputs.
STAMPS = {"created_at", "environment", "assay_version"}


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )


def _content(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in STAMPS}


def _library(result: Any) -> dict[str, Any]:
    return _content(json.loads(result.to_json()))


def test_evaluate_parity_with_failed_queries_in_the_sidecar(tmp_path: Path) -> None:
    run = RUNS / "flaky.trec"
    proc = _cli(
        "evaluate", str(QUESTIONS), str(run), "-m", "nDCG@10", "-m", "RR", "--by", "language",
        "--abstain-below", "0.7", "-f", "json", "--no-record", cwd=tmp_path,
    )  # fmt: skip
    # failed queries: the whole report, then exit 1 naming them (assay.core.failures)
    assert proc.returncode == 1, proc.stderr
    assert "q01, q07" in proc.stderr and "--max-failed" in proc.stderr
    cli = _content(json.loads(proc.stdout))
    lib = _library(
        assay.evaluate(
            QUESTIONS,
            run,
            ["nDCG@10", "RR"],
            by=["language"],
            evaluation=assay.EvaluationOptions(abstain_below=0.7),
        )
    )
    assert cli == lib
    # the sidecar's failures are reported, not scored as zeros or counted as missing
    assert lib["run"]["failed_queries"] == ["q01", "q07"]
    assert [f["query_id"] for f in lib["run"]["failures"]] == ["q01", "q07"]
    assert lib["run"]["missing_queries"] == 0
    assert set(lib["per_query"]["query_id"]).isdisjoint({"q01", "q07"})  # columns (schema 2)
    assert lib["abstention"]["excluded_ids"] == ["q01", "q07"]


def test_library_reads_the_sidecar_of_a_run_path() -> None:
    """``assay.evaluate(judgments, "run.trec")`` reads the sidecar like ``assay evaluate``."""
    result = assay.evaluate(str(QUESTIONS), str(RUNS / "flaky.trec"), ["RR"])
    assert result.run.failed_queries == ["q01", "q07"]
    assert result.run.config_hash == "sha256:13955f57335f34a3"
    assert result.run.failures[0].error == "RuntimeError: backend down"
    loaded = assay.evaluate(QUESTIONS, assay.load_run(RUNS / "flaky.trec"), ["RR"])
    # a Run object has no sidecar: its failed queries are simply missing
    assert loaded.run.failed_queries == [] and loaded.run.missing_queries == 2


def test_compare_parity(tmp_path: Path) -> None:
    runs = [RUNS / "keyword.trec", RUNS / "names.trec", RUNS / "flaky.trec"]
    proc = _cli(
        "compare", str(QUESTIONS), *map(str, runs), "-m", "nDCG@10", "-m", "RR",
        "--by", "language", "--permutations", "2000", "--resamples", "2000", "-f", "json",
        "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # flaky.trec has failed queries
    cli = _content(json.loads(proc.stdout))
    lib = _library(
        assay.compare(
            QUESTIONS,
            runs,
            ["nDCG@10", "RR"],
            comparison=assay.ComparisonOptions(
                by=["language"], n_permutations=2000, n_resamples=2000
            ),
        )
    )
    assert cli == lib
    # the failed queries of flaky.trec are not paired
    assert lib["n_queries"] == 12 and "q01" not in lib["per_query"]["query_id"]  # columns


def test_compare_takes_named_runs_and_result_files(tmp_path: Path) -> None:
    baseline = assay.evaluate(QUESTIONS, RUNS / "keyword.trec", ["nDCG@10"])
    saved = tmp_path / "keyword.json"
    saved.write_text(baseline.to_json(), encoding="utf-8")
    out = assay.compare(QUESTIONS, {"kw": saved, "names": RUNS / "names.trec"}, ["nDCG@10"])
    assert [s.name for s in out.systems] == ["kw", "names"]
    assert out.comparisons[0].delta == pytest.approx(-0.0714, abs=1e-4)


def test_gate_parity_and_policy_travels(tmp_path: Path) -> None:
    base = assay.evaluate(QUESTIONS, RUNS / "keyword.trec", ["nDCG@10"])
    base_file = tmp_path / "base.json"
    base_file.write_text(base.to_json(), encoding="utf-8")
    out = tmp_path / "gate.json"
    args = ["gate", str(QUESTIONS), str(RUNS / "names.trec"), "--baseline", str(base_file)]
    proc = _cli(*args, "--resamples", "2000", "--json", str(out), "--no-record", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # names-only drops nDCG@10 by 0.071
    cli = _content(json.loads(out.read_text(encoding="utf-8")))
    lib = assay.gate(
        QUESTIONS,
        RUNS / "names.trec",
        base_file,
        ["nDCG@10"],
        rule=assay.GateOptions(n_resamples=2000),
    )
    assert cli == _library(lib)
    assert not lib.passed and lib.candidate_evaluation.run.name == "keyword-names-only"
    # the candidate is scored with the user's policy; a baseline scored otherwise is refused
    proc = _cli(*args, "--missing", "skip", "--no-record", cwd=tmp_path)
    assert proc.returncode == 2 and "--missing" in proc.stderr, proc.stderr
    with pytest.raises(assay.UsageError, match="`missing` policies"):
        assay.gate(
            QUESTIONS, RUNS / "names.trec", base, options=assay.ScoringOptions(missing="skip")
        )
    skip_base = assay.evaluate(
        QUESTIONS, RUNS / "keyword.trec", ["nDCG@10"], options=assay.ScoringOptions(missing="skip")
    )
    gated = assay.gate(
        QUESTIONS, RUNS / "names.trec", skip_base, options=assay.ScoringOptions(missing="skip")
    )
    assert gated.policy.missing == "skip"


def test_one_configuration_one_hash(tmp_path: Path) -> None:
    """The run cache, the sidecar, the result, the store and the report carry one hash."""
    from assay.systems.base import config_hash
    from assay.systems.config import build_system

    env = {"ASSAY_CACHE_DIR": str(tmp_path / "cache"), "ASSAY_STORE": str(tmp_path / "h.db")}
    common = ["-s", "keyword", "--config", str(CONFIG)]
    proc = _cli("run", str(QUESTIONS), *common, "-o", "kw.trec", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    expected = config_hash(build_system("keyword", config_path=CONFIG).config)
    sidecar = json.loads((tmp_path / "kw.trec.json").read_text(encoding="utf-8"))
    assert sidecar["config_hash"] == expected and expected in proc.stdout
    (entry,) = (tmp_path / "cache").glob("*.json")
    assert json.loads(entry.read_text(encoding="utf-8"))["key"]["config_hash"] == expected
    proc = _cli("evaluate", str(QUESTIONS), *common, "-f", "json", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run"]["config_hash"] == expected
    table = _cli("evaluate", str(QUESTIONS), "kw.trec", "--no-record", cwd=tmp_path, env=env)
    assert f"config {expected}" in table.stdout
    with assay.open_store(env["ASSAY_STORE"]) as store:
        (recorded,) = store.list(kind="evaluation")
    assert recorded.config_hash == expected
    # the store's fallback for results without a hash uses the same rule
    from assay.store.columns import index_columns

    payload = json.loads(proc.stdout)
    payload["run"]["config_hash"] = None
    assert index_columns(payload)["config_hash"] == expected


def _mean_of(command: str, proc: subprocess.CompletedProcess, out: Path) -> float:
    """The nDCG@10 mean of the system under test in each command's JSON."""
    if command == "gate":
        return json.loads(out.read_text(encoding="utf-8"))["checks"][0]["candidate_mean"]
    data = json.loads(proc.stdout)
    if command == "evaluate":
        return data["aggregate"]["nDCG@10"]
    if command == "compare":
        return data["comparisons"][0]["candidate_mean"]
    return data["checks"][0]["system_mean"]


def _in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess:
    """One command run by ``main`` in this process (the subprocess form's fields)."""
    from assay.cli.app import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return subprocess.CompletedProcess(argv, int(exc.value.code or 0), out.out, out.err)


def test_system_runs_reuse_the_run_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--system X`` reuses the run ``assay run`` cached, in every command; ``--no-cache`` not.
    (In process: the subprocess form of the same commands is in the tests above.)"""
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ASSAY_RECORD", "0")
    monkeypatch.chdir(tmp_path)
    common = ["-s", "keyword", "--config", str(CONFIG)]
    made = _in_process(["run", str(QUESTIONS), *common, "-o", "kw.trec"], capsys)
    assert made.returncode == 0, made.stderr
    base = tmp_path / "base.json"
    base.write_text(assay.evaluate(QUESTIONS, tmp_path / "kw.trec", ["nDCG@10"]).to_json())
    (entry,) = (tmp_path / "cache").glob("*.json")
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["run"] = {q: [["not-a-judged-doc", 1.0]] for q in data["run"]}  # a marker: scores 0
    entry.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "gate.json"
    argvs = {
        "evaluate": ["evaluate", str(QUESTIONS), *common, "-m", "nDCG@10", "-f", "json"],
        "compare": ["compare", str(QUESTIONS), "kw.trec", *common, "-m", "nDCG@10", "-f", "json"],
        "gate": ["gate", str(QUESTIONS), *common, "--baseline", str(base), "-o", str(out)],
        "verify-suite": [
            "verify-suite", str(QUESTIONS), *common, "--degraded", "shuffle", "-f", "json",
        ],
    }  # fmt: skip
    for command, argv in argvs.items():
        cached = _in_process(argv, capsys)
        assert cached.returncode in (0, 1) and not cached.stderr.count("Traceback"), cached.stderr
        assert _mean_of(command, cached, out) == 0.0, command  # the cached (marked) run
        fresh = _in_process([*argv, "--no-cache"], capsys)
        assert fresh.returncode in (0, 1), fresh.stderr
        assert _mean_of(command, fresh, out) > 0.5, command  # the system, called again


def test_verify_suite_parity(tmp_path: Path) -> None:
    out = tmp_path / "verify.json"
    argv = ["verify-suite", str(QUESTIONS), "-s", "keyword", "--config", str(CONFIG)]
    proc = _cli(
        *argv, "--degraded", "keyword-names-only", "-m", "nDCG@10", "-m", "RR", "-o", str(out),
        "--no-record", cwd=tmp_path, env={"ASSAY_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # 14 questions cannot show the drop
    from assay.systems.config import build_system

    lib = assay.verify_suite(
        QUESTIONS,
        build_system("keyword", config_path=CONFIG),
        build_system("keyword-names-only", config_path=CONFIG),
        ["nDCG@10", "RR"],
    )
    assert _content(json.loads(out.read_text(encoding="utf-8"))) == _library(lib)
