"""Multiple-testing corrections equal statsmodels' ``multipletests``, alone and in compare."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import UsageError
from assay.stats.compare import compare
from assay.stats.corrections import CORRECTIONS, adjust
from helpers_synthetic import synthetic_result

multitest = pytest.importorskip("statsmodels.stats.multitest")

#: assay's name -> statsmodels' name of the same method
PEER = {"holm": "holm", "bonferroni": "bonferroni", "hommel": "hommel", "bh": "fdr_bh",
        "by": "fdr_by"}  # fmt: skip

# p-values as tests give them: exact ties, ones, zeros, tiny and rounded values
_P = st.one_of(
    st.sampled_from([0.0, 1.0, 1e-300, 5e-324, 0.05, 0.5, 1 - 1e-16]),
    st.floats(0.0, 1.0, allow_nan=False),
    st.floats(0.0, 1.0, allow_nan=False).map(lambda x: round(x, 2)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_P, min_size=1, max_size=40), st.sampled_from(sorted(PEER)))
def test_equal_to_statsmodels(pvalues: list[float], method: str) -> None:
    ours = adjust(pvalues, method)
    theirs = multitest.multipletests(np.array(pvalues), method=PEER[method])[1]
    np.testing.assert_array_equal(ours, theirs)


@given(st.lists(_P, min_size=1, max_size=20))
def test_none_keeps_the_p_values_and_every_method_keeps_order_and_bounds(p: list[float]) -> None:
    np.testing.assert_array_equal(adjust(p, "none"), np.asarray(p))
    for method in CORRECTIONS:
        a = adjust(p, method)
        assert a.shape == (len(p),) and ((a >= np.asarray(p)) & (a <= 1.0)).all()


def test_empty_family_and_unknown_method() -> None:
    assert adjust([], "hommel").size == 0
    with pytest.raises(UsageError, match="unknown correction 'sidak'") as exc:
        adjust([0.1], "sidak")
    assert exc.value.parameter == "correction"


def _results(n: int = 40):
    rng = np.random.default_rng(7)
    base = rng.random(n)
    systems = [synthetic_result("base", {"nDCG@10": base, "RR": base})]
    for i, shift in enumerate((-0.08, -0.02, 0.0, 0.03)):
        moved = np.clip(base + shift + rng.normal(0, 0.1, n), 0, 1)
        systems.append(synthetic_result(f"s{i}", {"nDCG@10": moved, "RR": np.sqrt(moved)}))
    return systems


@pytest.mark.parametrize("method", sorted(PEER))
def test_compare_adjusts_its_family_as_statsmodels(method: str) -> None:
    out = compare(_results(), test="t", correction=method.upper(), n_resamples=200)
    p = np.array([c.p_value for c in out.comparisons])
    expected = multitest.multipletests(p, method=PEER[method])[1]
    np.testing.assert_array_equal([c.p_adjusted for c in out.comparisons], expected)
    assert out.settings.adjustment == method
    for c, e in zip(out.comparisons, expected, strict=True):
        assert (c.verdict == "no detectable difference") == (e >= 0.05 or c.delta == 0)


def test_compare_refuses_an_unknown_correction() -> None:
    with pytest.raises(UsageError, match="unknown correction") as exc:
        compare(_results(), correction="fdr")
    assert exc.value.parameter == "correction"


QRELS = "\n".join(f"q{i} 0 d{i} 1" for i in range(12)) + "\n"


def _run(path, name: str, rank_of_rel: int) -> None:
    lines = []
    for i in range(12):
        docs = [f"x{i}_{j}" for j in range(9)]
        docs.insert(rank_of_rel if i % 3 else 0, f"d{i}")
        lines += [f"q{i} Q0 {d} {r + 1} {100 - r} {name}" for r, d in enumerate(docs)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("method", sorted(PEER))
def test_cli_compare_correction_equals_statsmodels(tmp_path, capsys, method: str) -> None:
    from assay.cli.app import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    runs = []
    for name, rank in (("a", 0), ("b", 2), ("c", 5)):
        _run(tmp_path / f"{name}.trec", name, rank)
        runs.append(str(tmp_path / f"{name}.trec"))
    args = ["compare", str(qrels), *runs, "-m", "RR", "-m", "P@1", "-m", "nDCG@10"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--correction", method, "-f", "json", "--test", "t", "--no-record"])
    assert exc.value.code == 0
    data = json.loads(capsys.readouterr().out)
    p = np.array([c["p_value"] for c in data["comparisons"]])
    expected = multitest.multipletests(p, method=PEER[method])[1]
    np.testing.assert_array_equal([c["p_adjusted"] for c in data["comparisons"]], expected)
    assert data["settings"]["adjustment"] == method
    with pytest.raises(SystemExit):
        main([*args, "--correction", method, "-f", "plain", "--test", "t", "--no-record"])
    text = capsys.readouterr().out
    label = {"bh": "BH", "by": "BY"}.get(method, method.capitalize())
    assert f"p {label}" in text
    assert ("p Holm" in text) == (method == "holm")


def test_cli_compare_unknown_correction_exits_2(tmp_path, capsys) -> None:
    from assay.cli.app import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    _run(tmp_path / "a.trec", "a", 0)
    _run(tmp_path / "b.trec", "b", 3)
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(qrels), str(tmp_path / "a.trec"), str(tmp_path / "b.trec"),
              "--correction", "sidak", "--no-record"])  # fmt: skip
    assert exc.value.code == 2
    assert "unknown correction 'sidak'" in capsys.readouterr().err
