"""pass@k, pass^k and flip rates: against enumeration of every k-subset, scipy's comb, the stub."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from helpers_matrix import write_matrix
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import comb

from assay.core.errors import UsageError
from assay.matrix import load_matrix, run_matrix
from assay.matrix.reliability import flip_rate, pass_at_k, pass_hat_k, reliability
from assay.matrix.result import Attempt, MatrixResult
from assay.matrix.summary import make_cell


@st.composite
def outcomes(draw):  # a cell's repeats (True = passed) and a k
    reps = draw(st.lists(st.booleans(), min_size=1, max_size=9))
    return reps, draw(st.integers(1, len(reps)))


@given(outcomes())
@settings(max_examples=300, deadline=None)
def test_estimators_equal_enumeration_of_every_k_subset(case) -> None:
    reps, k = case
    subsets = list(combinations(reps, k))
    any_pass = sum(any(s) for s in subsets) / len(subsets)
    all_pass = sum(all(s) for s in subsets) / len(subsets)
    n, c = len(reps), sum(reps)
    assert pass_at_k(n, c, k) == pytest.approx(any_pass, abs=1e-12)
    assert pass_hat_k(n, c, k) == pytest.approx(all_pass, abs=1e-12)
    pairs = list(combinations(reps, 2))
    expected_flip = sum(a != b for a, b in pairs) / len(pairs) if pairs else None
    assert flip_rate(n, c) == (None if expected_flip is None else pytest.approx(expected_flip))


@given(
    st.integers(1, 200).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))
    )
)
@settings(max_examples=300, deadline=None)
def test_estimators_equal_scipy_comb(nck) -> None:
    n, c, k = nck
    total = comb(n, k, exact=True)
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k, exact=True) / total, rel=1e-12)
    assert pass_hat_k(n, c, k) == pytest.approx(comb(c, k, exact=True) / total, rel=1e-12)
    # Chen et al.'s numerically stable product form of the same estimator
    stable = 1.0 if n - c < k else 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))
    assert pass_at_k(n, c, k) == pytest.approx(stable, rel=1e-9, abs=1e-12)


def test_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
    with pytest.raises(ValueError):
        pass_hat_k(3, 4, 1)


def _cells(variant: str, rows: list[list[bool]]):
    return [
        make_cell(
            variant,
            "p",
            "m",
            f"c{i}",
            "",
            [Attempt(repeat=r, passed=ok, assertions={}) for r, ok in enumerate(reps)],
        )
        for i, reps in enumerate(rows)
    ]


def test_variant_means_intervals_and_flaky_cases_first() -> None:
    rows = [[True] * 4, [True, False, True, False], [False] * 4, [True, True, True, False]]
    rel = reliability(_cells("p/m", rows), ["p/m"], [1, 2, 4])
    assert [c.case_id for c in rel.cases] == ["c1", "c3", "c0", "c2"]  # flaky first, by flips
    by_k = {v.k: v for v in rel.variants}
    for k, v in by_k.items():
        expect_at = np.mean([pass_at_k(4, sum(r), k) for r in rows])
        expect_hat = np.mean([pass_hat_k(4, sum(r), k) for r in rows])
        assert v.pass_at_k == pytest.approx(expect_at) and v.pass_hat_k == pytest.approx(expect_hat)
        assert v.pass_at_k_ci[0] <= v.pass_at_k <= v.pass_at_k_ci[1]
        assert v.pass_hat_k_ci[0] <= v.pass_hat_k <= v.pass_hat_k_ci[1]
        assert v.cases == 4 and v.flaky_cases == 2
    # k = 1: pass@1 = pass^1 = the pass rate
    assert by_k[1].pass_at_k == by_k[1].pass_hat_k == pytest.approx(sum(map(sum, rows)) / 16)


def test_a_case_with_fewer_repeats_than_k_is_left_out_of_that_k() -> None:
    cells = _cells("p/m", [[True, False, True], [True]])
    rel = reliability(cells, ["p/m"], [1, 3])
    short = next(c for c in rel.cases if c.case_id == "c1")
    assert short.pass_at == {"1": 1.0, "3": None} and short.flip_rate is None
    assert {v.k: v.cases for v in rel.variants} == {1: 2, 3: 1}


def test_matrix_reports_reliability_with_the_flaky_case_first(stub, env, tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from assay.report.matrix_markdown import render_markdown
    from assay.report.matrix_terminal import render_terminal

    flaky = (
        '{"case_id": "flaky", "question": "FLAKY which gas do plant leaves absorb?", '
        '"documents": [{"id": "d1", "text": "Plant leaves absorb carbon dioxide."}], '
        '"expected_status": "answered"}\n'
    )
    steady = flaky.replace('"flaky"', '"steady"').replace("FLAKY ", "")
    path = write_matrix(tmp_path, stub.base_url, repeats=4, cases=steady + flaky,
                        extra="pass_k = [1, 2, 4]")  # fmt: skip
    result = run_matrix(load_matrix(path), cache_dir=str(tmp_path / "cache"))
    rel = result.reliability
    assert rel.ks == [1, 2, 4]
    first = rel.cases[0]
    assert first.case_id == "flaky" and first.flaky and first.passes == 2
    assert first.pass_at["2"] == pytest.approx(1 - comb(2, 2) / comb(4, 2))
    assert first.pass_hat["4"] == 0.0 and first.flip_rate == pytest.approx(4 / 6)
    again = MatrixResult.model_validate_json(result.model_dump_json())
    assert again.reliability == rel
    md = render_markdown(result)
    section = md[md.index("Cases, flaky first") :]
    assert section.index("flaky (flaky)") < section.index("| steady")
    out = StringIO()
    render_terminal(result, Console(file=out, width=200))
    assert "reliability over repeats" in out.getvalue() and "Chen et al. 2021" in out.getvalue()


def test_pass_k_above_the_repeats_names_file_table_and_key(env, tmp_path: Path) -> None:
    path = write_matrix(tmp_path, "http://127.0.0.1:9/v1", repeats=2, extra="pass_k = [3]")
    with pytest.raises(UsageError, match=r"matrix.toml \[matrix\] pass_k"):
        load_matrix(path)


def test_a_result_written_before_reliability_reads_without_it() -> None:
    from assay.results.models import read_result_file

    old = Path(__file__).resolve().parents[1] / "data" / "results" / "matrix.json"
    result = read_result_file(old)
    assert result.kind == "matrix" and result.reliability is None
