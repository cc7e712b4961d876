"""``assay verify-suite``: a degraded system must score significantly lower."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _gate_helpers import corpus_ids, result_from_values, scifact_runs

from assay.cli.app import main
from assay.core.errors import UsageError
from assay.procedures.verification import shuffle_run, verify_results
from assay.runs.models import Run


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


def test_verdicts_on_constructed_values() -> None:
    rng = np.random.default_rng(0)
    good = rng.uniform(0.4, 0.9, 50)
    ref = result_from_values("system", good.tolist())
    clearly_worse = result_from_values("degraded", (good - 0.2).tolist())
    v = verify_results(ref, clearly_worse, "nDCG@10")
    c = v.checks[0]
    assert v.passed and c.p_value < 0.05 and c.delta == pytest.approx(-0.2)
    assert "significantly lower" in c.message
    better = result_from_values("degraded", (good + 0.05).tolist())
    v = verify_results(ref, better, "nDCG@10")
    assert not v.passed and "does not score lower" in v.checks[0].message
    noise = good.copy()
    noise[:2] -= 0.1  # lower on 2 of 50 queries: not significant
    v = verify_results(ref, result_from_values("degraded", noise.tolist()), "nDCG@10")
    c = v.checks[0]
    assert c.delta < 0 and c.p_value >= 0.05 and not v.passed
    assert "not significant" in c.message
    with pytest.raises(UsageError):
        verify_results(ref, clearly_worse, "RR")


def test_shuffle_keeps_documents_loses_order() -> None:
    run = Run.from_dict(
        {"q1": [(f"d{i}", 10.0 - i) for i in range(10)], "q2": [("a", 2.0), ("b", 1.0)]}
    )
    shuffled = shuffle_run(run, seed=3)
    again = shuffle_run(run, seed=3)
    got = {q: [d for d, _ in items] for q, items in shuffled.to_dict().items()}
    assert got == {q: [d for d, _ in items] for q, items in again.to_dict().items()}
    assert sorted(got["q1"]) == sorted(f"d{i}" for i in range(10))
    assert got["q1"] != [f"d{i}" for i in range(10)]
    assert not shuffled.has_scores


def test_scifact_constructed_runs(shared_data: Path) -> None:
    from assay.judgments.load import load_judgments
    from assay.metrics.measures import parse_measures
    from assay.procedures.evaluation import score_run

    folder = shared_data / "beir_scifact"
    js = load_judgments(folder)
    base, worse = scifact_runs(js.qrels_dict(), corpus_ids(folder / "corpus.jsonl"), seed=5)
    measures = parse_measures(["nDCG@10"])
    ref = score_run(Run.from_dict(base, name="sys"), js, measures, ties="given")
    deg = score_run(Run.from_dict(worse, name="deg"), js, measures, ties="given")
    v = verify_results(ref, deg, "nDCG@10")
    assert v.passed and v.checks[0].n == 300 and v.checks[0].p_value < 0.001
    same = verify_results(ref, ref, "nDCG@10")
    assert not same.passed and same.checks[0].p_value == 1.0


def test_statistics_example(examples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """14 questions: the names-only variant scores lower, but not significantly."""
    ex = examples_dir / "statistics"
    argv = [
        "verify-suite",
        str(ex / "questions.csv"),
        "--system",
        "keyword",
        "--config",
        str(ex / "assay.toml"),
        "-m",
        "nDCG@10",
    ]
    rc = _run([*argv, "--degraded", "keyword-names-only"])
    out = capsys.readouterr().out
    assert "nDCG@10 system" in out and "p = " in out
    # Observed: delta -0.071 on 14 queries (one query differs), p = 1: the suite is too small.
    assert rc == 1 and "not significant" in out
    rc = _run([*argv, "--degraded", "shuffle", "--seed", "1"])
    out = capsys.readouterr().out
    assert rc in (0, 1) and "shuffled" in out
    assert _run([*argv, "--degraded", "no-such-system"]) == 2


def test_verify_writes_a_result_that_report_renders(
    examples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Repeatable -m, -o FILE.json, recorded by default, and `assay report` renders it."""
    ex = examples_dir / "statistics"
    out = tmp_path / "verify.json"
    argv = [
        "verify-suite", str(ex / "questions.csv"), "--system", "keyword", "--config",
        str(ex / "assay.toml"), "--degraded", "keyword-names-only", "-m", "nDCG@10", "-m", "RR",
        "-o", str(out),
    ]  # fmt: skip
    assert _run(argv) == 1
    capsys.readouterr()
    from assay.results.models import read_result_file

    result = read_result_file(out)
    assert result.kind == "verify" and result.metrics == ["nDCG@10", "RR"]
    assert [c.metric for c in result.checks] == ["nDCG@10", "RR"] and not result.passed
    assert _run(["report", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "RR system" in shown and "nDCG@10 degraded" in shown
    assert _run(["history", "--kind", "verify"]) in (0, 1)


def test_verify_schema_1_files_migrate(data_dir: Path) -> None:
    """A verify result written before checks were listed reads as one check."""
    from assay.results.models import read_result_file

    result = read_result_file(data_dir / "results" / "verify.json")
    assert result.schema_version == "2" and len(result.checks) == 1
    assert result.checks[0].metric == "nDCG@10" and result.metrics == ["nDCG@10"]
