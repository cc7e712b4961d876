"""BEIR's ``ignore_identical_ids`` through every door: library, CLI and ``assay report``.

The independent value is BEIR's own procedure, done as ``EvaluateRetrieval.evaluate``
does it: delete every document whose id is its query's id from the results dict,
then score what is left with pytrec_eval (trec_eval's code) and average over the
queries pytrec_eval scored. Off (the default), assay must equal pytrec_eval on
the results as given.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import assay
from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.procedures.gating import gate

pytrec_eval = pytest.importorskip("pytrec_eval")

KS = (1, 3, 5)
#: assay's names of the four families BEIR's evaluate reports, and pytrec_eval's
PAIRS = [(f"{a}@{k}", f"{b}_{k}") for k in KS for a, b in
         (("nDCG", "ndcg_cut"), ("AP", "map_cut"), ("R", "recall"), ("P", "P"))]  # fmt: skip
CLI = [sys.executable, "-c", "from assay.cli import main; main()"]


def _beir(qrels: dict, results: dict) -> dict[str, float]:
    """BEIR's evaluate with ignore_identical_ids=True, written out: pop, then pytrec_eval."""
    results = {q: dict(docs) for q, docs in results.items()}
    for qid, docs in results.items():
        for doc in list(docs):
            if doc == qid:
                docs.pop(doc)
    measures = {"ndcg_cut." + ",".join(map(str, KS)), "map_cut." + ",".join(map(str, KS))}
    measures |= {"recall." + ",".join(map(str, KS)), "P." + ",".join(map(str, KS))}
    scores = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(results)
    return {
        ours: statistics.fmean(s[theirs] for s in scores.values()) if scores else 0.0
        for ours, theirs in PAIRS
    }


@st.composite
def collections(draw):
    """Queries whose ids are also doc ids (ArguAna-style), graded qrels and scored runs."""
    ids = [f"x{i}" for i in range(7)]
    queries = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
    qrels, results = {}, {}
    for q in queries:
        judged = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
        qrels[q] = {d: draw(st.integers(0, 2)) for d in judged}
        if not any(qrels[q].values()):
            qrels[q][judged[0]] = 1
        if draw(st.booleans()):
            found = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=7, unique=True))
            if draw(st.booleans()) and q not in found:
                found.insert(draw(st.integers(0, len(found))), q)  # the query finds itself
            scores = draw(st.permutations(range(len(found))))
            results[q] = {d: float(s) for d, s in zip(found, scores, strict=True)}
    return qrels, results


def _js(qrels: dict) -> JudgmentSet:
    return JudgmentSet.from_records([{"query_id": q, "text": q} for q in qrels], qrels)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=collections())
# found by hypothesis: a query whose only retrieved document is itself is scored 0, not skipped
@example(case=({"x0": {"x0": 1}, "x1": {"x0": 1}}, {"x0": {"x0": 0.0}, "x1": {"x0": 0.0}}))
def test_scores_equal_beirs_evaluate_and_trec_eval_when_off(case) -> None:
    qrels, results = case
    metrics = [ours for ours, _ in PAIRS]
    runs = {q: sorted(d.items(), key=lambda i: -i[1]) for q, d in results.items()}
    on = assay.evaluate(
        _js(qrels),
        runs,
        metrics,
        options=assay.ScoringOptions(missing="skip", ignore_identical_ids=True),
    )
    expected = _beir(qrels, results)
    for name in metrics:
        value = on.aggregate[name]
        assert (value if value == value else 0.0) == pytest.approx(expected[name]), name
    dropped = sum(q in d for q, d in results.items())
    assert on.run.identical_ids_dropped == dropped
    assert on.policy.ignore_identical_ids
    off = assay.evaluate(_js(qrels), runs, metrics, options=assay.ScoringOptions(missing="skip"))
    plain = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5"}).evaluate(results)
    if plain:
        want = statistics.fmean(s["ndcg_cut_5"] for s in plain.values())
        assert off.aggregate["nDCG@5"] == pytest.approx(want)
    assert off.run.identical_ids_dropped is None and not off.policy.ignore_identical_ids


QRELS = {"a": {"b": 1, "c": 0}, "b": {"a": 1}, "c": {"d": 2}}
SELF = {"a": ["a", "b", "c"], "b": ["b", "a", "x"], "c": ["d", "c"]}  # every query finds itself
OTHER = {"a": ["b", "c"], "b": ["a"], "c": ["x", "d"]}


def test_ranks_move_up_and_the_count_is_a_policy_line() -> None:
    on = assay.evaluate(
        _js(QRELS), SELF, ["RR", "P@1"], options=assay.ScoringOptions(ignore_identical_ids=True)
    )
    assert on.aggregate["RR"] == 1.0 and on.aggregate["P@1"] == 1.0  # b, a, d now first
    off = assay.evaluate(_js(QRELS), SELF, ["RR", "P@1"])
    assert off.aggregate["RR"] == pytest.approx((1 / 2 + 1 / 2 + 1) / 3)
    (rule,) = [r for r in on.policies if r.name == "ignore_identical_ids"]
    assert rule.differs and "3 documents dropped" in rule.text and "BEIR" in rule.trec_eval
    assert not any(r.name == "ignore_identical_ids" for r in off.policies)


def test_compare_and_gate_take_the_same_keyword(tmp_path: Path) -> None:
    scoring = assay.ScoringOptions(ignore_identical_ids=True)
    stats = assay.ComparisonOptions(n_permutations=50, n_resamples=50)
    result = assay.compare(
        _js(QRELS), {"self": SELF, "other": OTHER}, ["RR"], scoring, comparison=stats
    )
    texts = [r.text for r in result.policies if r.name == "ignore_identical_ids"]
    assert texts and any(t.startswith("self: ") and "3 documents" in t for t in texts)
    rule = assay.GateOptions(min_n=1, n_resamples=50)
    gated = gate(_js(QRELS), SELF, OTHER, ["RR"], scoring, rule=rule)
    assert gated.policy.ignore_identical_ids
    assert any(r.name == "ignore_identical_ids" for r in gated.policies)
    baseline = tmp_path / "base.json"
    baseline.write_text(assay.evaluate(_js(QRELS), OTHER, ["RR"]).to_json(), "utf-8")
    with pytest.raises(UsageError, match="ignore_identical_ids"):
        gate(
            _js(QRELS),
            SELF,
            baseline,
            ["RR"],
            options=assay.ScoringOptions(ignore_identical_ids=True),
            rule=assay.GateOptions(min_n=1),
        )


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, js in QRELS.items() for d, g in js.items()))
    runs = []
    for name, ranking in (("self", SELF), ("other", OTHER)):
        path = tmp_path / f"{name}.trec"
        lines = [f"{q} Q0 {d} {i + 1} {10 - i} {name}\n" for q, ds in ranking.items()
                 for i, d in enumerate(ds)]  # fmt: skip
        path.write_text("".join(lines), "utf-8")
        runs.append(path)
    return qrels, runs[0], runs[1]


def test_the_cli_flag_on_evaluate_compare_gate_and_report(tmp_path: Path) -> None:
    """One subprocess (the real entry point), the other doors in process."""
    qrels, run, _ = _files(tmp_path)
    flag = "--ignore-identical-ids"
    common = ["--judgments-format", "trec", "--no-record", "-m", "RR"]
    ev = subprocess.run(
        [*CLI, "evaluate", str(qrels), str(run), *common, flag, "-o", "ev.json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=180,
    )  # fmt: skip
    assert ev.returncode == 0, ev.stderr
    saved = json.loads((tmp_path / "ev.json").read_text("utf-8"))
    lib = assay.evaluate(
        qrels,
        run,
        ["RR"],
        options=assay.ScoringOptions(judgments_format="trec", ignore_identical_ids=True),
    )
    assert saved["policies"] == [p.model_dump() for p in lib.policies]
    assert saved["aggregate"]["RR"] == 1.0 and saved["run"]["identical_ids_dropped"] == 3


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from assay.cli import main

    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_compare_gate_and_report_print_the_rule(tmp_path: Path, capsys) -> None:
    qrels, run, other = _files(tmp_path)
    flag = "--ignore-identical-ids"
    common = ["--judgments-format", "trec", "--no-record", "-m", "RR"]
    saved = tmp_path / "ev.json"
    ev = assay.evaluate(
        qrels,
        run,
        ["RR"],
        options=assay.ScoringOptions(judgments_format="trec", ignore_identical_ids=True),
    )
    saved.write_text(ev.to_json(), "utf-8")
    code, out, err = _main(["report", str(saved)], capsys)
    assert code == 0, err
    assert "3 documents dropped" in out and "differs:" in out
    compare = ["compare", str(qrels), str(run), str(other), *common, flag, "-f", "json"]
    code, out, err = _main([*compare, "--permutations", "50", "--resamples", "50"], capsys)
    assert code == 0, err
    assert "ignore_identical_ids" in [p["name"] for p in json.loads(out)["policies"]]
    code, out, err = _main(["gate", str(qrels), str(run), "--baseline", str(saved), *common,
                            flag, "--min-n", "1", "--resamples", "50"], capsys)  # fmt: skip
    assert code == 0, err + out
    assert "3 documents dropped" in out.replace("\n", " ")
    code, out, err = _main(["gate", str(qrels), str(run), "--baseline", str(saved), *common,
                            "--min-n", "1"], capsys)  # fmt: skip
    assert code == 2 and "--ignore-identical-ids" in err
