"""Several baselines and all pairs: each pair once, one family, the single baseline unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from assay.report.latex import render_latex_comparison
from assay.stats.compare import compare
from helpers_synthetic import synthetic_result


def _results():
    rng = np.random.default_rng(5)
    base = rng.random(60)
    shifts = {"a": 0.0, "b": 0.15, "c": -0.1, "d": 0.02}
    out = []
    for name, shift in shifts.items():
        moved = np.clip(base + shift + rng.normal(0, 0.05, 60), 0, 1)
        out.append(synthetic_result(name, {"nDCG@10": moved, "RR": base}))
    return out


def test_all_pairs_once_in_one_family() -> None:
    out = compare(_results(), test="t", all_pairs=True, correction="hommel", n_resamples=200)
    pairs = [(c.baseline, c.candidate) for c in out.comparisons if c.metric == "nDCG@10"]
    assert pairs == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    p = [c.p_value for c in out.comparisons]
    assert len(p) == 12  # 6 pairs x 2 metrics: the family grew
    expected = multipletests(p, method="hommel")[1]
    np.testing.assert_array_equal([c.p_adjusted for c in out.comparisons], expected)
    one = compare(_results(), test="t", baseline="b", correction="none", n_resamples=200)
    raw = {(c.candidate, c.metric): c.p_value for c in one.comparisons}
    assert {(c.candidate, c.metric): c.p_value for c in out.comparisons if c.baseline == "b"} == {
        k: v for k, v in raw.items() if k[0] in ("c", "d")
    }
    by = {(c.baseline, c.candidate, c.metric): c for c in out.comparisons}
    assert (
        by["a", "b", "nDCG@10"].verdict == "better" and by["b", "c", "nDCG@10"].verdict == "worse"
    )


def test_several_baselines_and_a_list_of_one() -> None:
    out = compare(_results(), test="t", baseline=["c", "a"], n_resamples=200)
    pairs = [(c.baseline, c.candidate) for c in out.comparisons if c.metric == "RR"]
    assert pairs == [("c", "a"), ("c", "b"), ("c", "d"), ("a", "b"), ("a", "d")]
    single = compare(_results(), test="t", baseline="b", n_resamples=200)
    listed = compare(_results(), test="t", baseline=["b"], n_resamples=200)
    strip = ("created_at", "environment", "assay_version")
    a, b = json.loads(single.to_json()), json.loads(listed.to_json())
    assert {k: v for k, v in a.items() if k not in strip} == {
        k: v for k, v in b.items() if k not in strip
    }
    assert "baseline" not in a["comparisons"][0]  # one baseline: rows as before


def test_latex_marks_every_pairs_winner() -> None:
    out = compare(_results(), test="t", all_pairs=True, n_resamples=200)
    text = render_latex_comparison(out)
    rows = {line.split(" & ")[1]: line.split(" & ")[2] for line in text.splitlines()
            if line[:2] in ("a ", "b ", "c ", "d ")}  # fmt: skip
    wins = {
        c.candidate if c.verdict == "better" else c.baseline
        for c in out.comparisons
        if c.metric == "nDCG@10" and c.verdict != "no detectable difference"
    }
    assert "b" in wins and rows["b"].startswith("\\textbf{")
    for name in "abcd":
        assert ("$^{" in rows[name]) == (name in wins)


def test_cli_all_pairs_table(tmp_path, capsys) -> None:
    from assay.cli.app import main

    paths = []
    for r in _results():
        path = tmp_path / f"{r.run.name}.json"
        path.write_text(r.to_json())
        paths.append(str(path))
    qrels = tmp_path / "q.txt"
    qrels.write_text("q0 0 d 1\n")
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(qrels), *paths, "--all-pairs", "--test", "t", "-f", "plain",
              "--no-record", "-m", "nDCG@10"])  # fmt: skip
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "All compared pairs" in text and "▲ b" in text and "Comparison vs a, b, c" in text
    with pytest.raises(SystemExit):
        main(["compare", str(qrels), *paths, "--baseline", "d", "--baseline", "a", "-f",
              "json", "--no-record", "-m", "nDCG@10", "--test", "t"])  # fmt: skip
    rows = json.loads(capsys.readouterr().out)["comparisons"]
    assert [(r["baseline"], r["candidate"]) for r in rows] == [
        ("d", "a"), ("d", "b"), ("d", "c"), ("a", "b"), ("a", "c")
    ]  # fmt: skip
