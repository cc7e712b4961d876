"""Rubric and pairwise judges declared in TOML, one model or a jury, against the stub server.

The stub's rules (tests/llm_stub.py) say what each model answers, so the
expected scores below follow from those rules; agreement figures are checked
against scikit-learn and the ``krippendorff`` package (test oracles only).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from assay.core.errors import AssayError, UsageError
from assay.procedures.declared_judges import DeclaredJudgeOptions, judge_pairwise, judge_rubric
from assay.procedures.model_options import ModelCallOptions

RUBRIC = """
[judge]
kind = "rubric"
models = {models}
aggregate = "{aggregate}"
prompt = "You review answers to questions about official statistics."
template = "Question: {{question}}\\nAnswer: {{answer}}"

[criteria.correct]
description = "The figures and facts are right."
scale = [1, 5]
anchors = {{ 1 = "wrong", 3 = "partly right", 5 = "right" }}

[criteria.clear]
description = "A reader understands the answer at once."
scale = [0, 2]
anchors = {{ 0 = "confusing", 2 = "clear" }}
"""

PAIRWISE = """
[judge]
kind = "pairwise"
models = {models}
prompt = "You compare two answers to the same question and say which is better."
template = "Question: {{question}}\\nFirst: {{first}}\\nSecond: {{second}}"
"""

EXTRA_MODELS = "".join(
    f"""
[models.{name}]
base_url = "{{url}}"
model = "stub-{name}"
input_price = 1.0
output_price = 2.0
timeout = 5
retries = 0
max_consecutive_failures = 100
"""
    for name in ("first", "harsh", "broken", "garbled")
)


@pytest.fixture
def toml(model_toml: Path, stub) -> Path:
    model_toml.write_text(
        model_toml.read_text() + EXTRA_MODELS.replace("{url}", stub.base_url), encoding="utf-8"
    )
    return model_toml


def _lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _calls(toml: Path, tmp: Path, **kw) -> ModelCallOptions:
    return ModelCallOptions(config=toml, cache_dir=tmp / "cache", **kw)


ITEMS = [
    {"id": "i1", "question": "unemployment rate", "answer": "GOOD 5.1%", "labels": {"correct": 5}},
    {"id": "i2", "question": "child deaths", "answer": "BAD nothing", "labels": {"correct": 1}},
    {
        "id": "i3",
        "question": "inflation",
        "answer": "about 3%",
        "labels": {"correct": 5, "clear": 1},
    },
    {"id": "i4", "question": "hunger", "answer": "GOOD 9% undernourished"},
]
# the stub's rule: GOOD -> top of the scale, BAD -> bottom, else the middle (rounded down)
EXPECTED = {"correct": [5, 1, 3, 5], "clear": [2, 0, 1, 2]}


def _rubric(tmp: Path, models: str, aggregate: str = "majority") -> Path:
    path = tmp / "judge.toml"
    path.write_text(RUBRIC.format(models=models, aggregate=aggregate), encoding="utf-8")
    return path


def test_rubric_judge_reports_per_criterion(toml: Path, tmp_path: Path) -> None:
    items = _lines(tmp_path / "items.jsonl", ITEMS)
    result = judge_rubric(items, _rubric(tmp_path, '["stub"]'), calls=_calls(toml, tmp_path))
    assert result.exit_code() == 0 and result.failed_runs()[0][1] == []
    by = {c.name: c for c in result.criteria}
    for crit, expected in EXPECTED.items():
        assert [i["scores"][crit] for i in result.items] == expected
        c = by[crit]
        assert c.scored == 4 and c.mean == pytest.approx(np.mean(expected))
        lo, hi = c.scale
        assert c.distribution == {str(v): expected.count(v) for v in range(lo, hi + 1)}
        assert c.jury_alpha is None  # one model
    human = by["correct"].human
    people, judge = [5, 1, 5], [5, 1, 3]
    assert human.n == 3 and human.accuracy == pytest.approx(2 / 3)
    assert human.cohen_kappa == pytest.approx(cohen_kappa_score(people, judge))
    assert by["clear"].human.n == 1
    # the prompt was written for the criteria: their anchors are in the system message
    system = result.runs[0].model_dump()  # the run names the prompt hash and version
    assert system["rubric_version"].startswith("judge/") and system["prompt_hash"].startswith(
        "sha256:"
    )


def test_rubric_is_cached_exactly_as_the_other_judges(toml: Path, tmp_path: Path, stub) -> None:
    items = _lines(tmp_path / "items.jsonl", ITEMS)
    judge = _rubric(tmp_path, '["stub"]')
    judge_rubric(items, judge, calls=_calls(toml, tmp_path))
    before = len(stub.state.requests)
    again = judge_rubric(items, judge, calls=_calls(toml, tmp_path, offline=True))
    assert len(stub.state.requests) == before
    assert again.runs[0].usage.cached == 4
    system = stub.state.requests[-1]["messages"][0]["content"]
    assert "3 = partly right" in system and "correct: The figures" in system


@pytest.mark.parametrize("aggregate", ["majority", "mean"])
def test_rubric_jury_combines_and_reports_its_agreement(
    toml: Path, tmp_path: Path, aggregate: str
) -> None:
    items = _lines(tmp_path / "items.jsonl", ITEMS)
    judge = _rubric(tmp_path, '["stub", "harsh", "first"]', aggregate)
    result = judge_rubric(items, judge, calls=_calls(toml, tmp_path))
    harsh = {"correct": 1, "clear": 0}
    for crit, expected in EXPECTED.items():
        votes = [[e, harsh[crit], e] for e in expected]  # "first" grades as the plain stub
        want = [np.mean(v) if aggregate == "mean" else max(set(v), key=v.count) for v in votes]
        assert [i["scores"][crit] for i in result.items] == pytest.approx(want)
        matrix = np.array(votes, dtype=float).T  # coders x units
        alpha = next(c for c in result.criteria if c.name == crit).jury_alpha
        for level in ("nominal", "ordinal", "interval"):
            oracle = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
            assert alpha[level] == pytest.approx(oracle)


def _pairs(tmp: Path) -> Path:
    return _lines(
        tmp / "pairs.jsonl",
        [
            {"id": "p1", "question": "unemployment rate women", "a": "unemployment rate of women",
             "b": "rainfall", "label": "a"},
            {"id": "p2", "question": "child mortality", "a": "rainfall totals",
             "b": "child mortality fell", "label": "b"},
            {"id": "p3", "question": "inflation", "a": "prices", "b": "wages", "label": "tie"},
        ],
    )  # fmt: skip


def _pairwise(tmp: Path, models: str) -> Path:
    path = tmp / "pairwise.toml"
    path.write_text(PAIRWISE.format(models=models), encoding="utf-8")
    return path


def test_a_judge_always_picking_the_first_answer_is_fully_biased_and_ties(
    toml: Path, tmp_path: Path, stub
) -> None:
    result = judge_pairwise(
        _pairs(tmp_path), _pairwise(tmp_path, '["first"]'), calls=_calls(toml, tmp_path)
    )
    assert result.position_bias == 1.0
    assert [p["verdict"] for p in result.pairs] == ["tie", "tie", "tie"]
    assert result.wins == {"a": 0, "b": 0, "tie": 3}
    (m,) = result.models
    assert m.position_bias == 1.0 and m.first_position_rate == 1.0 and m.consistent == 0
    # every pair was asked in both orders
    asked = [r["messages"][-1]["content"].split("\n") for r in stub.state.requests[-6:]]
    orders = {(a[1].removeprefix("First: "), a[2].removeprefix("Second: ")) for a in asked}
    for pair in map(json.loads, (tmp_path / "pairs.jsonl").read_text().splitlines()):
        assert {(pair["a"], pair["b"]), (pair["b"], pair["a"])} <= orders


def test_an_unbiased_judge_and_a_jury_with_a_biased_one(toml: Path, tmp_path: Path) -> None:
    pairs = _pairs(tmp_path)
    fair = judge_pairwise(pairs, _pairwise(tmp_path, '["stub"]'), calls=_calls(toml, tmp_path))
    assert [p["verdict"] for p in fair.pairs] == ["a", "b", "tie"]
    assert fair.position_bias == 0.0 and fair.models[0].consistent == 2
    assert fair.human.n == 3 and fair.human.accuracy == 1.0
    jury = judge_pairwise(
        pairs, _pairwise(tmp_path, '["stub", "first"]'), calls=_calls(toml, tmp_path)
    )
    # stub says a / b / tie, the biased model tie / tie / tie: no majority but on p3
    assert [p["verdict"] for p in jury.pairs] == ["tie", "tie", "tie"]
    assert jury.position_bias == pytest.approx(3 / 6)
    codes = {"a": 0, "tie": 1, "b": 2}
    data = np.array([[codes[v] for v in ("a", "b", "tie")], [1, 1, 1]], dtype=float)
    oracle = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert jury.jury_alpha["nominal"] == pytest.approx(oracle)


def test_a_malformed_output_model_is_unscored_and_fails(toml: Path, tmp_path: Path) -> None:
    result = judge_pairwise(
        _pairs(tmp_path), _pairwise(tmp_path, '["garbled"]'), calls=_calls(toml, tmp_path)
    )
    assert result.exit_code() == 1 and result.nothing_scored
    assert len(result.unscored) == 6
    assert all(u["reasons"][0].startswith("unparsable") for u in result.unscored)
    assert [p["verdict"] for p in result.pairs] == [None, None, None]
    assert result.position_bias is None


def test_a_failing_model_in_a_jury_is_counted(toml: Path, tmp_path: Path) -> None:
    items = _lines(tmp_path / "items.jsonl", ITEMS)
    judge = _rubric(tmp_path, '["stub", "broken"]')
    result = judge_rubric(items, judge, calls=_calls(toml, tmp_path))
    failed = dict(result.failed_runs())
    assert failed["judge rubric --model stub"] == []
    assert len(failed["judge rubric --model broken"]) == 4
    assert result.exit_code() == 0  # the CLI's --max-failed decides (below)
    # the jury's verdict is the model that answered
    assert [i["scores"]["correct"] for i in result.items] == EXPECTED["correct"]
    proc = _cli(
        "judge", "rubric", str(items), "--judge", str(judge), "--config", str(toml),
        "--cache-dir", str(tmp_path / "cache"), cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1 and "broken" in proc.stderr


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_cli_pairwise_json_text_and_report(toml: Path, tmp_path: Path) -> None:
    pairs, judge = _pairs(tmp_path), _pairwise(tmp_path, '["first"]')
    common = ("--config", str(toml), "--cache-dir", str(tmp_path / "cache"))
    proc = _cli("judge", "pairwise", str(pairs), "--judge", str(judge), *common,
                "-o", "out.json", "-f", "json", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["kind"] == "pairwise_judge" and saved["position_bias"] == 1.0
    text = _cli("report", "out.json", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "position bias (share of pairs following the position): 1.000" in text.stdout
    assert "ties 3" in text.stdout
    wrong = _cli("judge", "rubric", str(pairs), "--judge", str(judge), *common, cwd=tmp_path)
    assert wrong.returncode == 2 and "use `assay judge pairwise`" in wrong.stderr


@pytest.mark.parametrize(
    "edit, message",
    [
        (('scale = [1, 5]', 'scale = [5, 1]'), r"\[criteria.correct\] scale"),
        (('3 = "partly right", 5 = "right"', '3 = "partly right"'),
         r"\[criteria.correct\] anchors: both ends of the scale \(1 and 5\)"),
        (('aggregate = "{aggregate}"', 'aggregate = "median"'), r"\[judge\] aggregate"),
        (('kind = "rubric"', 'kind = "rubric"\ncolour = 1'), r"\[judge\] colour: unknown key"),
        (("{{question}}", "{{question"), r"\[judge\] template"),
    ],
)  # fmt: skip
def test_judge_file_errors_name_file_table_and_key(
    toml: Path, tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    text = RUBRIC.replace(*edit).format(models='["stub"]', aggregate="majority")
    judge = tmp_path / "judge.toml"
    judge.write_text(text, encoding="utf-8")
    items = _lines(tmp_path / "items.jsonl", ITEMS)
    with pytest.raises(UsageError, match=r"judge.toml(:\d+:)? " + message):
        judge_rubric(items, judge, calls=_calls(toml, tmp_path))


def test_item_errors_name_file_line_and_field(toml: Path, tmp_path: Path) -> None:
    rows = [dict(ITEMS[0]), {"id": "x", "question": "q"}, {**ITEMS[1], "labels": {"correct": 9}}]
    items = _lines(tmp_path / "items.jsonl", rows)
    with pytest.raises(AssayError) as err:
        judge_rubric(items, _rubric(tmp_path, '["stub"]'), calls=_calls(toml, tmp_path))
    text = str(err.value)
    assert "items.jsonl" in text and "answer" in text and "9" in text
    pairwise = tmp_path / "bad.toml"
    pairwise.write_text(PAIRWISE.format(models='["stub"]').replace("{second}", "x"))
    with pytest.raises(
        UsageError, match=r"bad.toml \[judge\] template: .*\{first\} and \{second\}"
    ):
        judge_pairwise(_pairs(tmp_path), pairwise, calls=_calls(toml, tmp_path))


def test_samples_that_split_between_positions_make_a_tie(toml: Path, tmp_path: Path) -> None:
    pairs = _lines(tmp_path / "flip.jsonl", [{"id": "f", "question": "FLIP", "a": "x", "b": "y"}])
    result = judge_pairwise(
        pairs, _pairwise(tmp_path, '["stub"]'), calls=_calls(toml, tmp_path),
        options=DeclaredJudgeOptions(samples=2),
    )  # fmt: skip
    shown = result.pairs[0]["models"]["stub"]
    assert shown["a_first"] == shown["b_first"] == "tie"  # first once, second once: no majority
    assert result.pairs[0]["verdict"] == "tie" and result.runs[0].flip_rate() == 1.0


def test_every_new_model_field_is_described() -> None:
    from assay.judges.pairwise import ModelPairStats, PairwiseJudgeResult
    from assay.judges.panel import CriterionReport, RubricJudgeResult
    from assay.matrix.reliability import CaseReliability, Reliability, VariantReliability

    models = (DeclaredJudgeOptions, ModelPairStats, PairwiseJudgeResult, CriterionReport,
              RubricJudgeResult, CaseReliability, Reliability, VariantReliability)  # fmt: skip
    inherited = {"schema_version", "kind", "assay_version", "created_at"}
    for model in models:
        for name, field in model.model_fields.items():
            assert field.description or name in inherited, f"{model.__name__}.{name}"
