"""Counts (NumRet, NumRel, NumRelRet, NumQ) print as whole numbers in every renderer.

The sums are checked against trec_eval's own ``out.test`` (num_ret 1500, num_rel
561, num_rel_ret 131 on ``qrels.test`` / ``results.test``); other measures keep
their decimals.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.judgments.models import JudgmentSet
from assay.metrics.measures import is_count
from assay.procedures.gating import gate
from assay.report.digits import exact, fmt, fmt_signed
from assay.report.render import render

COUNTS = ["NumRet", "NumRel", "NumRelRet"]


def _trec_eval_sums(path: Path) -> dict[str, int]:
    names = {"num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet"}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in names and parts[1] == "all":
            out[names[parts[0]]] = int(parts[2])
    return out


@pytest.fixture
def trec_files(shared_data: Path) -> tuple[Path, Path, dict[str, int]]:
    base = shared_data / "trec_eval_tests"
    return base / "qrels.test", base / "results.test", _trec_eval_sums(base / "out.test")


def test_the_count_rule_comes_from_the_registry() -> None:
    assert all(is_count(m) for m in [*COUNTS, "NumQ"])
    assert not any(is_count(m) for m in ["P@10", "AP", "nDCG@10", "GMAP", None, "NoSuch@3"])


def test_one_formatting_rule() -> None:
    assert fmt(584.0, 2, "NumRet") == "584" and fmt(0.25, 2, "P@10") == "0.25"
    assert fmt(584.0, 2) == "584.00" and fmt(7, 3) == "7" and fmt(None, 2, "NumRet") == "-"
    assert fmt_signed(-3.0, 4, "NumRelRet") == "-3" and fmt_signed(0.5, 2, "RR") == "+0.50"
    assert exact(500.0, "NumRet") == 500 and isinstance(exact(500.0, "NumRet"), int)
    assert exact(0.5, "P@5") == 0.5 and exact(float("nan"), "NumRet") != exact(1.0, "NumRet")
    # n * mean rounding still counts as whole; a mean of counts (a gate's) keeps its decimals
    assert fmt(0.1 * 3 * 10, 2, "NumRel") == "3" and exact(0.1 * 3 * 10, "NumRel") == 3
    assert fmt(2.75, 3, "NumRet") == "2.750" and exact(2.75, "NumRet") == 2.75


@pytest.mark.parametrize("fmt_name", ["table", "plain", "markdown"])
def test_evaluation_tables_print_trec_evals_sums(trec_files, fmt_name: str) -> None:
    qrels, run, expected = trec_files
    assert expected == {"NumRet": 1500, "NumRel": 561, "NumRelRet": 131}
    result = assay.evaluate(
        qrels, run, ["P@10", *COUNTS], options=assay.ScoringOptions(judgments_format="trec")
    )
    text = render(result, fmt_name)
    all_row = next(x for x in text.splitlines() if re.match(r"^\|?\s*all\s*\|?\s", x))
    cells = [c for c in re.split(r"[|\s]+", all_row) if c]
    assert cells[1:] == ["3", "0.30", "1500", "561", "131"]
    assert "1500.00" not in text and ".00 " not in all_row
    per_query = [x for x in text.splitlines() if re.match(r"^\|?\s*30[123]\s", x)]
    assert len(per_query) == 3 and all(re.search(r"\s500\s", x) for x in per_query)


def test_evaluation_csv_writes_counts_whole(trec_files) -> None:
    qrels, run, _ = trec_files
    result = assay.evaluate(
        qrels, run, ["P@10", *COUNTS], options=assay.ScoringOptions(judgments_format="trec")
    )
    rows = list(csv.DictReader(io.StringIO(render(result, "csv"))))
    assert [r["NumRet"] for r in rows] == ["500", "500", "500"]
    assert sum(int(r["NumRel"]) for r in rows) == 561
    assert all("." in r["P@10"] for r in rows)


def test_the_cli_prints_counts_whole(trec_files, tmp_path: Path) -> None:
    qrels, run, _ = trec_files
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "evaluate", str(qrels)]
    cmd += [str(run), "--judgments-format", "trec", "-m", "P@10", "-m", "NumRet", "--no-record"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^all\s+3\s+0\.30\s+1500\s*$", proc.stdout, re.M), proc.stdout
    assert "NumRet: summed over queries (as trec_eval)" in proc.stdout


# --------------------------------------------------------------------------- compare, gate
QUERIES = [{"query_id": f"q{i}", "text": f"query {i}"} for i in range(1, 9)]
QRELS = {f"q{i}": {f"d{i}": 1, f"e{i}": 1} for i in range(1, 9)}
BASE = {f"q{i}": [f"d{i}", f"e{i}", "z"] for i in range(1, 9)}
CAND = {f"q{i}": [f"d{i}"] if i <= 3 else [f"d{i}", "z"] for i in range(1, 9)}


def _compare() -> assay.ComparisonResult:
    js = JudgmentSet.from_records(QUERIES, QRELS)
    return assay.compare(
        js,
        {"base": BASE, "cand": CAND},
        ["NumRet", "P@5"],
        comparison=assay.ComparisonOptions(n_permutations=500, n_resamples=500),
    )


def test_compare_sums_counts_as_trec_eval_and_keeps_the_test() -> None:
    result = _compare()
    num_ret, p5 = result.comparisons
    assert (num_ret.baseline_mean, num_ret.candidate_mean, num_ret.delta) == (24.0, 13.0, -11.0)
    assert (p5.baseline_mean, p5.candidate_mean, p5.delta) == pytest.approx((0.4, 0.2, -0.2))
    # the interval of a total is n times that of the mean; p and effect size are the mean's
    by_mean = [q.deltas["cand"]["NumRet"] for q in result.per_query]
    assert num_ret.ci_low <= sum(by_mean) <= num_ret.ci_high
    assert num_ret.effect_size == pytest.approx(sum(by_mean) / 8 / _sd(by_mean))


def _sd(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5


@pytest.mark.parametrize("fmt_name", ["table", "plain", "markdown"])
def test_compare_renderers_print_counts_whole(fmt_name: str) -> None:
    text = render(_compare(), fmt_name)
    sep = r"(?:\s+|\s*\|\s*)"
    n = f"8{sep}"
    assert re.search(rf"NumRet{sep}{n}24{sep}13{sep}-11{sep}\[-\d+, [+-]\d+\]", text)
    assert re.search(rf"P@5{sep}{n}0\.4000?{sep}0\.2000?{sep}-0\.2000", text)
    assert "24.0000" not in text and "-11.0000" not in text


def test_compare_page_prints_counts_whole() -> None:
    from assay.view import render_html

    text = render_html(_compare())
    answer = text.split('id="answer"', 1)[1].split("</ul>", 1)[0]
    assert re.search(r"<b>NumRet</b> of cand Δ <b>-11</b>, 95% CI \[-\d+, [+-]\d+\]", answer)
    assert "24 → 13" in answer and "0.4000 → 0.2000" in answer
    assert "24.0000" not in text and "-11.0000" not in text


def test_compare_csv_writes_counts_whole() -> None:
    rows = list(csv.DictReader(io.StringIO(render(_compare(), "csv"))))
    assert [r["NumRet [base]"] for r in rows] == ["3"] * 8
    assert [r["delta NumRet [cand]"] for r in rows] == ["-2"] * 3 + ["-1"] * 5
    assert rows[0]["P@5 [base]"] == "0.4"


def test_a_gate_says_it_decides_counts_on_per_query_means() -> None:
    js = JudgmentSet.from_records(QUERIES, QRELS)
    result = gate(js, CAND, BASE, ["NumRet"], rule=assay.GateOptions(min_n=2, n_resamples=200))
    text = render(result, "plain")
    assert "NumRet: gated on its mean per query (the margin is per query)" in text
    assert "summed over queries" not in text
    assert result.checks[0].baseline_mean == pytest.approx(3.0)


def test_a_verify_suite_says_it_tests_counts_on_per_query_means() -> None:
    from assay.procedures.verification import verify_suite

    js = JudgmentSet.from_records(QUERIES, QRELS)
    result = verify_suite(
        js,
        BASE,
        CAND,
        ["NumRet"],
        statistics=assay.PairedTestOptions(n_permutations=200, n_resamples=200),
    )
    text = render(result, "plain")
    assert "NumRet: tested on its mean per query [differs:" in text
    assert "summed over queries" not in text


def test_history_prints_recorded_counts_whole(tmp_path: Path) -> None:
    from assay.report.history_terminal import history_table
    from assay.report.table import markdown_table
    from assay.store.api import open_store
    from assay.store.history import build_history

    js = JudgmentSet.from_records(QUERIES, QRELS)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        store.record(
            assay.evaluate(
                js, BASE, ["NumRet", "P@5"], evaluation=assay.EvaluationOptions(name="prod")
            )
        )
        report = build_history(store.list(system="prod"), store="x")
    table = markdown_table(history_table(report))
    assert re.search(r"\|\s*24\s*\|", table) and "24.0000" not in table and "0.4000" in table
    from assay.view import render_history_html

    assert '<td class="num">24</td>' in render_history_html(report)


def test_history_keeps_a_gates_mean_of_a_count_as_it_is(tmp_path: Path) -> None:
    from assay.report.history_terminal import history_table
    from assay.report.table import markdown_table
    from assay.store.api import open_store
    from assay.store.history import build_history

    js = JudgmentSet.from_records(QUERIES, QRELS)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        gated = gate(js, CAND, BASE, ["NumRet"], rule=assay.GateOptions(min_n=2, n_resamples=100))
        store.record(gated)
        report = build_history(store.list(), store="x")
    assert gated.checks[0].candidate_mean == pytest.approx(13 / 8)
    assert "1.6250" in markdown_table(history_table(report))
