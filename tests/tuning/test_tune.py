"""``tune`` end to end on python systems: luck is not called a gain, a real optimum is found,
a cached second call asks nothing, and bad --param values are refused naming the option."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _tuning import LUCK, OPTIMUM, judgments, write_system

from assay.procedures.options import SourceOptions
from assay.procedures.tuning import TuneOptions, tune
from assay.stats.verdict import Verdict

FAST = {"n_permutations": 1000, "n_resamples": 1000}


def _cli(args: list[str]) -> int:
    """Run ``assay`` in this process; its exit status."""
    from assay.cli import main

    with pytest.raises(SystemExit) as done:
        main(args)
    return int(done.value.code or 0)


def _tune(path: Path, spec: str, params: tuple[str, ...], cache: Path | None, **kw):
    options = TuneOptions(params=params, metrics=("nDCG@10", "RR"), **FAST, **kw)
    source = SourceOptions(system=spec, cache_dir=cache, no_cache=cache is None)
    return tune(path, options, source, None)


@pytest.mark.slow  # twelve seeded trials of eight seeds each
def test_luck_is_never_called_better_and_optimism_is_positive(tmp_path: Path) -> None:
    spec = write_system(tmp_path, "luck", LUCK)
    seeds = ",".join(str(s) for s in range(1, 9))
    verdicts, optimism = [], []
    for trial in range(12):
        path = judgments(tmp_path, n=60, seed=trial)
        result = _tune(path, spec, (f"params.seed={seeds}",), tmp_path / "cache", seed=trial)
        verdicts += [c.verdict for c in result.held_out.comparisons]
        optimism.append(result.optimism["nDCG@10"])
    assert Verdict.BETTER not in verdicts
    no_difference = sum(v == Verdict.NO_DIFFERENCE for v in verdicts)
    assert no_difference >= 0.8 * len(verdicts), verdicts
    assert sum(o > 0 for o in optimism) >= 0.8 * len(optimism), optimism
    assert sum(optimism) / len(optimism) > 0


def test_a_real_optimum_is_found_and_beats_the_configured_system(tmp_path: Path) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=60)
    result = _tune(path, spec, ("params.alpha=0.0,0.3,0.6,0.9",), None, by="lang")
    assert all(f.chosen == {"params.alpha": 0.6} for f in result.folds)
    assert result.recommended.params == {"params.alpha": 0.6}
    assert all(c.verdict == Verdict.BETTER for c in result.held_out.comparisons)
    # the folds are stratified: each holds its share of French queries, give or take one
    french = {f"q{i}" for i in range(60) if i % 3 == 0}
    shares = [len(french & set(f.queries)) for f in result.folds]
    assert max(shares) - min(shares) <= 1
    assert sorted(q for f in result.folds for q in f.queries) == sorted(f"q{i}" for i in range(60))


def test_a_cached_second_call_asks_the_system_nothing(tmp_path: Path, monkeypatch) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=30)
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("TUNE_CALLS", str(calls))
    params = ("params.alpha=0.0,0.6,0.9",)
    first = _tune(path, spec, params, tmp_path / "cache")
    asked = calls.read_text().splitlines()
    assert len(asked) == 4 * 30  # the configured system and three sets, each query once
    assert (first.computed, first.cached) == (4, 0)
    second = _tune(path, spec, params, tmp_path / "cache")
    assert calls.read_text().splitlines() == asked
    assert (second.computed, second.cached) == (0, 4)
    assert second.grid == [p.model_copy(update={"cached": True}) for p in first.grid]
    assert second.folds == first.folds


def test_random_search_draws_distinct_sets_in_grid_order(tmp_path: Path) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=20)
    params = ("params.alpha=0.0,0.2,0.4,0.6,0.8,1.0",)
    result = _tune(path, spec, params, None, search="random", trials=3, folds=4)
    drawn = [p.params["params.alpha"] for p in result.grid]
    assert len(drawn) == 3 and drawn == sorted(set(drawn))


@pytest.mark.parametrize(
    ("param", "said"),
    [
        ("bogus=1,2", "unknown key 'bogus' for a python system"),
        ("timeout=-1,2", "--param timeout=-1"),
        ("params.alpha", "write KEY=V1,V2"),
    ],
)
def test_a_bad_param_exits_2_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], param: str, said: str
) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=10)
    args = ["tune", str(path), "--system", spec, "--param", param, "-m", "RR", "--no-cache"]
    assert _cli(args) == 2
    err = capsys.readouterr().err
    assert "--param" in err and said in err
    assert "Traceback" not in err


def test_the_command_writes_a_tuning_result_every_reader_reads(tmp_path: Path) -> None:
    from assay.report.render import render
    from assay.results.models import read_result_file

    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=20)
    out = tmp_path / "tune.json"
    args = ["tune", str(path), "--system", spec, "--param", "params.alpha=0.0,0.6"]
    args += ["--param", "timeout=5,10", "-m", "RR", "--folds", "4", "--no-cache", "-q"]
    assert _cli([*args, "-o", str(out), "--no-record"]) == 0
    tuning = read_result_file(out)
    assert tuning.kind == "tuning" and len(tuning.grid) == 4 and len(tuning.folds) == 4
    assert tuning.held_out.kind == "comparison"
    assert "Recommended" in render(tuning, "markdown")
    assert "held-out" in render(tuning, "plain")
    page = render(tuning, "html")
    assert 'id="objective"' in page and 'id="folds"' in page
    assert os.path.getsize(out) > 0


@pytest.mark.parametrize("method", ["bonferroni", "bh"])
def test_the_correction_reaches_the_held_out_comparison(tmp_path: Path, method: str) -> None:
    from statsmodels.stats.multitest import multipletests

    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=40)
    result = _tune(path, spec, ("params.alpha=0.0,0.6",), None, correction=method)
    held = result.held_out
    assert held.settings.adjustment == method
    raw = [c.p_value for c in held.comparisons]
    expected = multipletests(raw, method={"bh": "fdr_bh"}.get(method, method))[1]
    assert [c.p_adjusted for c in held.comparisons] == pytest.approx(list(expected), abs=1e-12)


def test_an_unknown_correction_is_refused_naming_the_option() -> None:
    from assay.core.errors import UsageError

    with pytest.raises(UsageError, match="correction"):
        TuneOptions(params=("k1=1",), metrics=("RR",), correction="sidak")
