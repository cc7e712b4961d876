"""One rule for runs with failed queries (assay.core.failures) across every command.

A system raises for 2 of 15 queries. ``run``, ``evaluate`` (run file or live
system), ``compare``, ``gate`` and ``verify-suite`` all exit 1 and name the
failed queries, unless ``--max-failed 2`` accepts them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli.app import main

FLAKY = """
def search(query, k):
    if query in ("question 3", "question 7"):
        raise RuntimeError("backend exploded")
    n = int(query.split()[1])
    return [(f"d{n}", 2.0), (f"x{n}", 1.0)]
"""


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


@pytest.fixture
def case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    (tmp_path / "flakymod.py").write_text(FLAKY, encoding="utf-8")
    (tmp_path / "goodmod.py").write_text(FLAKY.replace('"question 3", "question 7"', ""))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    qrels = tmp_path / "q.jsonl"
    qrels.write_text(
        "".join(
            json.dumps(
                {"query_id": f"q{i:02d}", "query": f"question {i}", "relevant": {f"d{i}": 1}}
            )
            + "\n"
            for i in range(15)
        ),
        encoding="utf-8",
    )
    return {"qrels": qrels, "dir": tmp_path}


def _flaky_run(case: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> Path:
    out = case["dir"] / "flaky.trec"
    rc = _run(
        [
            "run",
            str(case["qrels"]),
            "-s",
            "flakymod:search",
            "-o",
            str(out),
            "--no-cache",
            "--retries",
            "0",
        ]
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert "q03" in err and "q07" in err and "--max-failed" in err
    return out


def test_run_exits_1_unless_max_failed(case, capsys) -> None:
    _flaky_run(case, capsys)
    out = case["dir"] / "again.trec"
    argv = ["run", str(case["qrels"]), "-s", "flakymod:search", "-o", str(out), "--no-cache"]
    assert _run([*argv, "--retries", "0", "--max-failed", "2"]) == 0
    assert _run([*argv, "--retries", "0", "--max-failed", "1"]) == 1


def test_evaluate_run_file_and_live_system_agree(case, capsys) -> None:
    run = _flaky_run(case, capsys)
    q = str(case["qrels"])
    assert _run(["evaluate", q, str(run), "--no-record"]) == 1
    err = capsys.readouterr().err
    assert "2 failed queries" in err and "q03, q07" in err
    assert _run(["evaluate", q, "-s", "flakymod:search", "--retries", "0", "--no-record"]) == 1
    assert "q03, q07" in capsys.readouterr().err
    assert _run(["evaluate", q, str(run), "--no-record", "--max-failed", "2"]) == 0
    live = ["evaluate", q, "-s", "flakymod:search", "--retries", "0", "--no-record"]
    assert _run([*live, "--max-failed", "2"]) == 0
    assert _run(["evaluate", q, str(run), "--max-failed", "-1"]) == 2


def test_compare_exits_1_on_a_run_with_failed_queries(case, capsys) -> None:
    run = _flaky_run(case, capsys)
    good = case["dir"] / "good.trec"
    assert (
        _run(["run", str(case["qrels"]), "-s", "goodmod:search", "-o", str(good), "--no-cache"])
        == 0
    )
    q = str(case["qrels"])
    assert _run(["compare", q, str(good), str(run), "--no-record", "-f", "json"]) == 1
    assert "q03, q07" in capsys.readouterr().err
    assert (
        _run(["compare", q, str(good), str(run), "--no-record", "-f", "json", "--max-failed", "2"])
        == 0
    )


def test_gate_fails_a_candidate_with_failed_queries(case, capsys) -> None:
    run = _flaky_run(case, capsys)
    good = case["dir"] / "good.trec"
    _run(["run", str(case["qrels"]), "-s", "goodmod:search", "-o", str(good), "--no-cache"])
    q = str(case["qrels"])
    base = case["dir"] / "base.json"
    assert _run(["evaluate", q, str(good), "-o", str(base), "--no-record"]) == 0
    capsys.readouterr()
    report = case["dir"] / "gate.json"
    md = case["dir"] / "gate.md"
    argv = ["gate", q, str(run), "--baseline", str(base), "--no-record", "--min-n", "1"]
    assert _run([*argv, "--json", str(report), "--markdown", str(md)]) == 1
    out = md.read_text()  # with files given, the verdict goes to them (the one -o rule)
    assert "gate failed" in out and "q03, q07" in out and "passed" not in out
    data = json.loads(report.read_text())
    assert data["passed"] is False and data["failed_queries"] == ["q03", "q07"]
    assert "q03, q07" in md.read_text()
    assert _run([*argv, "--max-failed", "2"]) == 0


def test_verify_suite_exits_1_on_failed_queries(case, capsys) -> None:
    q = str(case["qrels"])
    argv = ["verify-suite", q, "-s", "flakymod:search", "--degraded", "shuffle"]
    assert _run(argv) == 1
    assert "q03, q07" in capsys.readouterr().err


def test_library_gate_applies_the_same_rule() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "gate"))
    from _gate_helpers import result_from_values

    from assay.procedures.gating import run_gate

    base = result_from_values("base", [0.5] * 20)
    cand = result_from_values("cand", [0.5] * 20)
    cand = cand.model_copy(update={"run": cand.run.model_copy(update={"failed_queries": ["qx"]})})
    assert not run_gate(cand, base, ["nDCG@10"]).passed
    assert run_gate(cand, base, ["nDCG@10"], max_failed=1).passed
