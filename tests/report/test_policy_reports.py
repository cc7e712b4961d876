"""Every report of evaluate, compare, gate and verify-suite prints the scoring policies.

A rule that differs from trec_eval's default is marked and says what trec_eval
does instead; the lines change with the policy (``missing='skip'`` drops the mark
of the missing-query rule, a no-answer query adds its rule).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import assay
from assay.core.policies import MISSING, TIES, ScoringPolicy
from assay.judgments.models import JudgmentSet
from assay.procedures.gating import gate
from assay.procedures.verification import verify_suite
from assay.report.policies import DIFFERS, NOT_RECORDED, policy_lines
from assay.report.render import FORMATS_BY_KIND, render
from assay.results.models import load_result, read_result_file

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "results"

QUERIES = [{"query_id": f"q{i}", "text": f"query {i}"} for i in range(1, 13)]
QRELS = {f"q{i}": {f"d{i}": 1, f"e{i}": 2} for i in range(1, 13)}
# q12 is judged but absent from both runs; x1 is in the runs but not judged
BASE = {f"q{i}": [f"d{i}", f"e{i}", "z"] for i in range(1, 12)} | {"x1": ["d1"]}
CAND = {f"q{i}": ["z", f"e{i}", f"d{i}"] for i in range(1, 12)} | {"x1": ["d1"]}


def _judgments(no_answer: bool = False) -> JudgmentSet:
    queries = list(QUERIES)
    if no_answer:
        queries.append({"query_id": "na", "text": "nothing here", "no_answer": True})
    return JudgmentSet.from_records(queries, QRELS)


def _evaluate(**kwargs: object) -> assay.EvaluationResult:
    metrics = kwargs.pop("metrics", ["nDCG@10", "P@5"])
    js = kwargs.pop("judgments", None) or _judgments()
    return assay.evaluate(js, BASE, metrics, options=assay.ScoringOptions(**kwargs))  # type: ignore[arg-type]


def _texts(result: object, fmt: str) -> str:
    return render(result, fmt)


def _missing_line(text: str) -> str:
    return next(
        line for line in text.splitlines() if MISSING["zero"] in line or MISSING["skip"] in line
    )


# --------------------------------------------------------------------------- evaluate
@pytest.mark.parametrize("fmt", ["table", "plain", "markdown", "json"])
def test_evaluation_reports_print_every_policy(fmt: str) -> None:
    result = _evaluate()
    text = _texts(result, fmt)
    for line in policy_lines(result.policies):
        shown = line.replace('"', '\\"') if fmt == "json" else line
        assert shown in text or fmt == "json"
    assert MISSING["zero"] in text and TIES["score"] in text
    assert "grade is >= 1 (trec_eval -l1)" in text
    assert "nDCG gains are the grades" in text
    assert "run query not judged" in text  # x1


def test_the_json_result_carries_the_policies_and_reads_back() -> None:
    result = _evaluate()
    data = json.loads(result.to_json())
    names = [p["name"] for p in data["policies"]]
    assert names[:2] == ["missing", "ties"] and "not_judged" in names
    assert data["policies"][0]["differs"] is True and "-c" in data["policies"][0]["trec_eval"]
    again = load_result(result.to_json())
    assert again.policies == result.policies


def test_missing_skip_removes_the_differs_mark() -> None:
    zero, skip = _evaluate(missing="zero"), _evaluate(missing="skip")
    zero_line = _missing_line(render(zero, "plain"))
    skip_line = _missing_line(render(skip, "plain"))
    assert DIFFERS in zero_line and "trec_eval's default skips them" in zero_line
    assert DIFFERS not in skip_line and MISSING["skip"] in skip_line
    assert zero.policies[0].differs and not skip.policies[0].differs


def test_ties_given_is_marked() -> None:
    text = render(_evaluate(ties="given"), "markdown")
    line = next(x for x in text.splitlines() if TIES["given"] in x)
    assert DIFFERS in line and "doc id descending" in line


def test_a_no_answer_query_adds_its_line() -> None:
    plain = render(_evaluate(), "plain")
    with_na = render(_evaluate(judgments=_judgments(no_answer=True)), "plain")
    assert "no-answer query" not in "\n".join(x for x in plain.splitlines() if "policy" in x)
    line = next(x for x in with_na.splitlines() if x.startswith("policy") and "no-answer" in x)
    assert "1 no-answer query" in line and DIFFERS in line and "num_q" in line


@pytest.mark.parametrize(
    ("metric", "phrase"),
    [
        ("P(rel=2)@5", "relevant means grade >= 2"),
        ("nDCG(gain=exp)@10", "gain 2^grade - 1"),
        ("nDCG(gains=1:3,2:9)@10", "custom gains 1:3,2:9"),
        ("AP(judged_only=true)", "unjudged documents removed before scoring"),
    ],
)
def test_measure_rules_that_differ_are_marked(metric: str, phrase: str) -> None:
    result = _evaluate(metrics=["RR", metric])
    line = next(x for x in policy_lines(result.policies) if phrase in x)
    assert metric in line and DIFFERS in line
    assert not any(phrase in x for x in policy_lines(_evaluate(metrics=["RR"]).policies))


def test_counts_are_said_to_sum_and_negative_grades_are_named() -> None:
    js = JudgmentSet.from_records(QUERIES[:2], {"q1": {"d1": 1, "z": -2}, "q2": {"d2": 1}})
    result = assay.evaluate(js, {"q1": ["z", "d1"], "q2": ["d2"]}, ["NumRet", "P@5"])
    lines = policy_lines(result.policies)
    assert any(x == "NumRet: summed over queries (as trec_eval)" for x in lines)
    assert any(x.startswith("1 judgment with a negative grade: non-relevant") for x in lines)


def test_a_label_file_decided_by_prefer_says_so(tmp_path: Path) -> None:
    rows = [
        {"query_id": "q1", "query": "a", "doc_id": "d1", "grade": 2, "source": "human"},
        {"query_id": "q1", "query": "a", "doc_id": "d1", "grade": 0, "source": "model"},
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = assay.evaluate(
        labels, {"q1": ["d1"]}, ["RR"], evaluation=assay.EvaluationOptions(prefer="model")
    )
    line = next(x for x in policy_lines(result.policies) if "--prefer" in x)
    assert "keep the model label (--prefer model)" in line and DIFFERS in line


def test_a_failed_system_call_is_a_policy_line() -> None:
    def search(text: str, k: int) -> list[str]:
        if text == "query 3":
            raise RuntimeError("down")
        return [f"d{text.split()[-1]}"]

    result = assay.evaluate(
        _judgments(),
        search,
        ["RR"],
        options=assay.ScoringOptions(retries=0, max_consecutive_failures=99),
    )
    line = next(x for x in policy_lines(result.policies) if "failed system call" in x)
    assert line.startswith("1 failed system call not scored") and "-c scores such a query 0" in line
    assert any("asked for its top 100 documents" in x for x in policy_lines(result.policies))


def test_a_cutoff_deeper_than_a_run_file_is_a_policy_line() -> None:
    result = _evaluate(metrics=["R@10"])
    assert any(
        x.startswith("R@10: the run lists at most 3 documents")
        for x in policy_lines(result.policies)
    )


def test_an_old_evaluation_file_gets_the_rules_its_fields_record() -> None:
    old = read_result_file(FIXTURES / "evaluation.json")
    raw = json.loads((FIXTURES / "evaluation.json").read_text(encoding="utf-8"))
    assert "policies" not in raw
    names = [p.name for p in old.policies]
    assert names[:2] == ["missing", "ties"] and "relevance" in names
    assert MISSING[raw["policy"]["missing"]] in render(old, "plain")


# --------------------------------------------------------------------------- compare
@pytest.mark.parametrize("fmt", ["table", "plain", "markdown", "html", "json"])
def test_comparison_reports_print_the_policies(fmt: str) -> None:
    result = assay.compare(
        _judgments(),
        {"base": BASE, "cand": CAND},
        ["nDCG@10"],
        comparison=assay.ComparisonOptions(n_permutations=200, n_resamples=200),
    )
    text = render(result, fmt)
    assert MISSING["zero"] in text and TIES["score"] in text
    if fmt != "json":
        assert DIFFERS in text
    skip = assay.compare(
        _judgments(),
        {"base": BASE, "cand": CAND},
        ["nDCG@10"],
        options=assay.ScoringOptions(missing="skip"),
        comparison=assay.ComparisonOptions(n_permutations=200, n_resamples=200),
    )
    assert MISSING["skip"] in render(skip, fmt) and MISSING["zero"] not in render(skip, fmt)


def test_an_old_comparison_file_says_its_policies_are_not_recorded() -> None:
    old = read_result_file(FIXTURES / "comparison.json")
    assert old.policies == []
    assert NOT_RECORDED in render(old, "plain")


# --------------------------------------------------------------------------- gate, verify
@pytest.mark.parametrize("fmt", FORMATS_BY_KIND["gate"])
def test_gate_reports_print_the_policies(fmt: str) -> None:
    result = gate(
        _judgments(), CAND, BASE, ["nDCG@10"], rule=assay.GateOptions(min_n=2, n_resamples=200)
    )
    text = render(result, fmt)
    assert MISSING["zero"] in text and TIES["score"] in text
    skip = gate(
        _judgments(),
        CAND,
        BASE,
        ["nDCG@10"],
        options=assay.ScoringOptions(missing="skip"),
        rule=assay.GateOptions(min_n=2, n_resamples=200),
    )
    assert MISSING["skip"] in render(skip, fmt)


@pytest.mark.parametrize("fmt", FORMATS_BY_KIND["verify"])
def test_verify_reports_print_the_policies(fmt: str) -> None:
    result = verify_suite(
        _judgments(),
        BASE,
        CAND,
        ["nDCG@10"],
        statistics=assay.PairedTestOptions(n_permutations=200, n_resamples=200),
    )
    text = render(result, fmt)
    assert MISSING["zero"] in text and TIES["score"] in text
    given = verify_suite(
        _judgments(),
        BASE,
        CAND,
        ["nDCG@10"],
        options=assay.ScoringOptions(ties="given"),
        statistics=assay.PairedTestOptions(n_permutations=200, n_resamples=200),
    )
    assert TIES["given"] in render(given, fmt)


@pytest.mark.parametrize("name", ["gate.json", "verify.json"])
def test_old_gate_and_verify_files_print_their_recorded_policy(name: str) -> None:
    old = read_result_file(FIXTURES / name)
    assert [p.name for p in old.policies] == ["missing", "ties"]
    assert MISSING[old.policy.missing] in render(old, "plain")


def test_a_rule_that_differs_without_a_reason_still_says_so() -> None:
    rule = ScoringPolicy(name="x", text="something", differs=True)
    assert policy_lines([rule]) == [f"something [{DIFFERS} its default does otherwise]"]
    assert policy_lines([]) == [NOT_RECORDED]


def test_a_calibration_is_named_among_the_policies() -> None:
    from assay.procedures.calibration import CalibrationResult, attach_calibration

    result = _evaluate()
    cal = CalibrationResult(
        run="run", model_labels={}, human_labels={}, alpha=0.1,
        queries={"model": 12, "human": 5, "model_only": 7}, metrics=[],
    )  # fmt: skip
    calibrated = attach_calibration(result, cal)
    assert len(calibrated.policies) == len(result.policies) + 1  # the argument is not changed
    line = policy_lines(calibrated.policies)[-1]
    assert line.startswith("--calibrate: PPI++ intervals (alpha 0.1)") and "5 of 12" in line
    assert line in render(calibrated, "plain")
