"""PPI++ against ppi_py (dev-only oracle), and `judge calibrate` on the DL19 model and NIST labels.

DL19 has no runs in ../shared/data, so the runs here rank each query's judged passages by a
seeded noisy score (the NIST grade plus noise): the point is how the labels score a run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.judges.labels import read_labels
from assay.judges.ppi import classical_mean_interval, ppi_mean_interval, tuned_lambda
from assay.procedures.agreement import agreement
from assay.procedures.calibration import calibrate

ppi_py = pytest.importorskip("ppi_py")  # dev-only oracle: pulls numba and statsmodels


@settings(max_examples=40, deadline=None)
@given(
    st.integers(5, 60),
    st.integers(1, 300),
    st.floats(0.0, 1.5),
    st.floats(0.01, 1.0),
    st.integers(0, 10_000),
)
def test_ppi_interval_equals_ppi_py(n: int, big_n: int, slope: float, noise: float, seed: int):
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.4, 0.3, n + big_n)
    pred = slope * truth + rng.normal(0, noise, n + big_n)
    y, yhat, yu = truth[:n], pred[:n], pred[n:]
    ours = ppi_mean_interval(y, yhat, yu, alpha=0.1)
    low, high = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=0.1)
    assert ours.low == pytest.approx(float(low[0]), abs=1e-10)
    assert ours.high == pytest.approx(float(high[0]), abs=1e-10)
    classic = classical_mean_interval(y, alpha=0.1)
    c_low, c_high = ppi_py.classical_mean_ci(y, alpha=0.1)
    assert (classic.low, classic.high) == pytest.approx((float(c_low), float(c_high)), abs=1e-12)


def test_lambda_limits() -> None:
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    assert tuned_lambda(y, -y, rng.normal(size=100)) == 0.0  # anti-correlated: ignore the model
    assert tuned_lambda(y, np.zeros(50), np.zeros(100)) == 0.0  # constant predictions
    # lam = 1 is plain PPI, lam = 0 is the people-only mean
    zero = ppi_mean_interval(y, y + 1, y[:10], lam=0.0)
    assert zero.estimate == pytest.approx(y.mean())


def _write_runs(human: Path, tmp_path: Path, noises=(0.3, 1.0, 2.0, 4.0)) -> list[Path]:
    frame = read_labels(human).frame
    paths = []
    for i, noise in enumerate(noises):
        rng = np.random.default_rng(100 + i)
        score = frame["grade"].to_numpy() + rng.normal(0, noise, len(frame))
        lines = []
        for (qid, doc), s in zip(
            zip(frame["query_id"], frame["doc_id"], strict=True), score, strict=True
        ):
            lines.append((qid, doc, float(s)))
        lines.sort(key=lambda t: (t[0], -t[2]))
        rank: dict[str, int] = {}
        out = []
        for qid, doc, s in lines:
            rank[qid] = rank.get(qid, 0) + 1
            out.append(f"{qid} Q0 {doc} {rank[qid]} {s:.6f} noise{noise}")
        path = tmp_path / f"run{i}.trec"
        path.write_text("\n".join(out) + "\n")
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def dl19(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    d = shared_data / "llm_judgments"
    tmp = tmp_path_factory.mktemp("dl19")
    human = d / "dl19-passage.human.qrels"
    return human, d / "dl19-passage.gpt-4o.umbrela.qrels", _write_runs(human, tmp), tmp


def _human_subset(human: Path, queries: list[str], path: Path) -> Path:
    keep = set(queries)
    lines = [x for x in human.read_text().splitlines() if x.split()[0] in keep]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ppi_intervals_cover_the_full_human_score(dl19, report_figure) -> None:
    human, model, runs, tmp = dl19
    from assay.judges.labels import to_judgments
    from assay.metrics.measures import parse_measure
    from assay.procedures.evaluation import score_run
    from assay.runs.io import load_run

    run = load_run(runs[1])
    measure = parse_measure("nDCG@10")
    truth = score_run(run, to_judgments(read_labels(human)), [measure]).aggregate["nDCG@10"]
    model_table = read_labels(model)
    qids = sorted(set(model_table.frame["query_id"]))
    rng = np.random.default_rng(11)
    covered_ppi = covered_people = 0
    ratios = []
    trials = 30
    for t in range(trials):
        sample = rng.choice(qids, size=15, replace=False).tolist()
        people = read_labels(_human_subset(human, sample, tmp / f"h{t}.qrels"))
        r = calibrate(model_table, run, people, metrics=["nDCG@10"], alpha=0.1).metrics[0]
        covered_ppi += r.ppi["low"] <= truth <= r.ppi["high"]
        covered_people += r.human_only["low"] <= truth <= r.human_only["high"]
        ratios.append(r.width_ratio)
    # 90% intervals over 30 random samples of 15 of 43 queries (finite population: conservative)
    assert covered_ppi >= 0.75 * trials and covered_people >= 0.75 * trials
    assert float(np.mean(ratios)) < 1.0  # the model labels narrow the interval
    report_figure(
        f"judge calibrate DL19 gpt-4o, 15 of 43 human queries, nDCG@10: PPI++ covers "
        f"{covered_ppi}/{trials}, people-only {covered_people}/{trials}, mean width ratio "
        f"{np.mean(ratios):.2f}"
    )


def test_calibrate_cli_reports_all_three(dl19, capsys) -> None:
    human, model, runs, tmp = dl19
    qids = sorted({x.split()[0] for x in human.read_text().splitlines()})[:20]
    sample = _human_subset(human, qids, tmp / "cli.qrels")
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "calibrate"]
    cmd += [str(model), str(runs[0]), "--human", str(sample), "-m", "nDCG@10", "-m", "RR"]
    proc = subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["kind"] == "calibration" and out["queries"] == {
        "model": 43,
        "human": 20,
        "model_only": 23,
    }
    for m in out["metrics"]:
        assert m["human_only"]["low"] <= m["human_only"]["estimate"] <= m["human_only"]["high"]
        assert 0.0 <= m["ppi"]["lambda"] <= 1.0 and m["ppi"]["unlabelled"] == 23
    from assay.cli import main

    with pytest.raises(SystemExit) as stop:
        main(cmd[3:])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "PPI++" in text and "people only" in text


def test_system_ranking_agreement(dl19) -> None:
    human, model, runs, _ = dl19
    same = agreement(human, human, runs=runs)
    assert same.ranking["kendall_tau"] == pytest.approx(1.0) and same.ranking["same_best"]
    r = agreement(human, model, runs=runs)
    ref = [s["reference"] for s in r.ranking["systems"]]
    assert ref == sorted(ref, reverse=True)  # less noise, better run
    from scipy.stats import kendalltau

    cand = [s["candidate"] for s in r.ranking["systems"]]
    assert r.ranking["kendall_tau"] == pytest.approx(kendalltau(ref, cand).statistic)


def test_evaluate_calibrate_option_calls_the_same_function(dl19, capsys) -> None:
    human, model, runs, tmp = dl19
    qids = sorted({x.split()[0] for x in human.read_text().splitlines()})[:20]
    sample = _human_subset(human, qids, tmp / "eval.qrels")
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "evaluate", str(model)]
    cmd += [str(runs[0]), "--calibrate", str(sample), "-m", "nDCG@10", "--no-record"]
    proc = subprocess.run([*cmd, "-f", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    cal = json.loads(proc.stdout)["calibration"]
    rules = [p for p in json.loads(proc.stdout)["policies"] if p["name"] == "calibration"]
    assert len(rules) == 1 and "PPI++" in rules[0]["text"]
    direct = calibrate(model, runs[0], sample, metrics=["nDCG@10"])
    assert cal["metrics"][0]["ppi"] == pytest.approx(direct.metrics[0].ppi)

    lib = assay.evaluate(
        model, runs[0], ["nDCG@10"], evaluation=assay.EvaluationOptions(calibrate=sample)
    ).calibration
    assert {**lib, "created_at": None} == {**cal, "created_at": None}
    from assay.cli import main

    with pytest.raises(SystemExit) as stop:
        main(cmd[3:])
    assert stop.value.code == 0
    assert "PPI++" in capsys.readouterr().out
