"""Procedures record the scoring policies; every door gives the same list.

``evaluate`` records the rules of one run, ``compare``, ``gate`` and
``verify-suite`` the merged rules of the evaluations behind them; the CLI's
JSON equals the library's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.core.policies import MISSING, ScoringPolicy, merge_policies
from assay.judgments.models import JudgmentSet
from assay.metrics.rules import scoring_policies
from assay.procedures.gating import gate
from assay.procedures.verification import verify_suite

QUERIES = [{"query_id": f"q{i}", "text": f"query {i}"} for i in range(1, 7)]
QRELS = {f"q{i}": {f"d{i}": 1} for i in range(1, 7)}
SHORT = {f"q{i}": [f"d{i}"] for i in range(1, 6)}  # q6 missing, one document per query
LONG = {f"q{i}": ["z", "y", f"d{i}"] for i in range(1, 7)} | {"extra": ["d1"]}


def _js() -> JudgmentSet:
    return JudgmentSet.from_records(QUERIES, QRELS)


def _texts(rules: list[ScoringPolicy]) -> list[str]:
    return [r.text for r in rules]


def test_a_rule_differs_exactly_when_it_says_what_trec_eval_does() -> None:
    rules = scoring_policies(
        missing="zero",
        ties="given",
        metrics=["nDCG(gain=exp)@10", "P(rel=3)@5", "AP(judged_only=true)", "NumRel", "RR"],
        no_answer_queries=2,
        ignored_queries=1,
        failed_queries=1,
        negative_grades=4,
        prefer="human",
        synthetic_queries=1,
        total_queries=9,
        depth_warnings=["R@10: the run lists at most 3 documents per query"],
        system_depth=50,
    )
    assert all(r.differs == (r.trec_eval is not None) for r in rules)
    assert len(set(_texts(rules))) == len(rules)
    differing = {r.name for r in rules if r.differs}
    assert differing == {"missing", "ties", "no_answer", "relevance", "gains", "judged_only"} | {
        "prefer",
        "failed",
    }
    same = scoring_policies(missing="skip", ties="score", metrics=["RR", "P@5"])
    assert not any(r.differs for r in same)


def test_compare_records_the_rules_of_every_evaluation() -> None:
    short = assay.evaluate(_js(), SHORT, ["R@10"])
    long = assay.evaluate(_js(), LONG, ["R@10"])
    result = assay.compare(
        _js(),
        {"short": SHORT, "long": LONG},
        ["R@10"],
        comparison=assay.ComparisonOptions(n_permutations=100, n_resamples=100),
    )
    assert result.policies == merge_policies([short.policies, long.policies], ["short", "long"])
    texts = _texts(result.policies)
    # rules both runs share are said once; the others say whose they are
    assert texts[:3] == _texts(short.policies)[:3] and MISSING["zero"] == texts[0]
    assert any(
        t.startswith("short: R@10: the run lists at most 1 document per query") for t in texts
    )
    assert any(t.startswith("long: R@10: the run lists at most 3 documents") for t in texts)
    assert any(t.startswith("long: 1 run query not judged") for t in texts)  # 'extra'


def test_compare_of_result_files_keeps_their_rules(tmp_path: Path) -> None:
    paths = []
    for name, run in (("short", SHORT), ("long", LONG)):
        path = tmp_path / f"{name}.json"
        path.write_text(
            assay.evaluate(
                _js(), run, ["RR"], options=assay.ScoringOptions(missing="skip")
            ).to_json(),
            "utf-8",
        )
        paths.append(path)
    result = assay.compare(
        _js(),
        paths,
        ["RR"],
        options=assay.ScoringOptions(missing="skip"),
        comparison=assay.ComparisonOptions(n_permutations=100, n_resamples=100),
    )
    assert result.policies[0].text == MISSING["skip"] and not result.policies[0].differs


def test_gate_and_verify_record_both_sides() -> None:
    gated = gate(_js(), LONG, SHORT, ["R@10"], rule=assay.GateOptions(min_n=2, n_resamples=100))
    texts = _texts(gated.policies)
    assert any(t.startswith("candidate run: R@10: the run lists at most 3") for t in texts)
    assert any(t.startswith("baseline run: R@10: the run lists at most 1") for t in texts)
    checked = verify_suite(
        _js(),
        SHORT,
        LONG,
        ["R@10"],
        statistics=assay.PairedTestOptions(n_permutations=100, n_resamples=100),
    )
    texts = _texts(checked.policies)
    assert any(t.startswith("system run: R@10: the run lists at most 1") for t in texts)
    assert any(t.startswith("degraded run: R@10: the run lists at most 3") for t in texts)
    assert texts[0] == MISSING["zero"]


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_the_cli_records_what_the_library_records(tmp_path: Path, missing: str) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} {i % 3 - 1}\n" for i in range(1, 7)), "utf-8")
    run = tmp_path / "run.trec"
    run.write_text("".join(f"q{i} Q0 d{i} 1 1.0 t\n" for i in range(1, 6)), "utf-8")
    metrics = ["nDCG(gain=exp)@10", "NumRet"]
    lib = assay.evaluate(
        qrels, run, metrics, options=assay.ScoringOptions(judgments_format="trec", missing=missing)
    )
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "evaluate", str(qrels)]
    cmd += [str(run), "--judgments-format", "trec", "--missing", missing, "--no-record"]
    cmd += ["-m", metrics[0], "-m", metrics[1], "-f", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["policies"] == [p.model_dump() for p in lib.policies]
    names = [p.name for p in lib.policies]
    assert "negative_grades" in names and names.count("gains") == 1
    assert lib.policies[0].differs == (missing == "zero")
