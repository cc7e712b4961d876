"""Gate decisions on constructed per-query values."""

from __future__ import annotations

import numpy as np
import pytest
from _gate_helpers import result_from_values

from assay.core.errors import UsageError
from assay.procedures.gating import GateResult, run_gate


def _values(n: int = 60, seed: int = 1) -> list[float]:
    return np.random.default_rng(seed).uniform(0.2, 0.9, n).round(4).tolist()


def test_identical_runs_pass() -> None:
    v = _values()
    gate = run_gate(result_from_values("c", v), result_from_values("b", v), ["nDCG@10"])
    assert gate.passed and gate.kind == "gate"
    [check] = gate.checks
    assert check.delta == 0 and check.ci_low == 0 and check.ci_high == 0
    assert "did not change" in check.message and check.status == "pass"
    assert "lower bound is above -0.010" in check.message
    assert gate.confidence == pytest.approx(0.9)  # one-sided 0.05 -> two-sided 90% interval


def test_real_drop_fails_with_numbers_in_words() -> None:
    base = _values()
    cand = [max(0.0, x - 0.1) for x in base]
    gate = run_gate(result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"])
    assert not gate.passed
    [check] = gate.failures
    assert check.delta == pytest.approx(-0.1, abs=0.01)
    assert check.ci_low < -0.01
    assert check.message.startswith("nDCG@10 dropped by 0.10")
    assert "90% CI" in check.message and "lower bound is below -0.010" in check.message
    assert check.status == "regression"
    # the verdict is added by the renderers, so the message does not carry it
    assert "regression" not in check.message and "pass" not in check.message


def test_tiny_drop_within_margin_passes() -> None:
    base = _values()
    cand = [x - 0.002 for x in base]
    gate = run_gate(result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"])
    assert gate.passed
    assert gate.checks[0].delta == pytest.approx(-0.002)
    assert (
        run_gate(
            result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"], margin=0.001
        ).passed
        is False
    )


def test_noisy_small_drop_fails_noninferiority_but_passes_threshold() -> None:
    rng = np.random.default_rng(3)
    base = _values(20)
    cand = [x - 0.005 + rng.normal(0, 0.15) for x in base]
    shift = np.mean(cand) - np.mean(base)
    cand = [x - shift - 0.005 for x in cand]  # mean drop exactly 0.005, large spread
    kwargs = dict(margin=0.01)
    ni = run_gate(
        result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"], **kwargs
    )
    th = run_gate(
        result_from_values("c", cand),
        result_from_values("b", base),
        ["nDCG@10"],
        mode="threshold",
        **kwargs,
    )
    assert ni.checks[0].delta == pytest.approx(-0.005)
    assert not ni.passed  # the data cannot rule out a drop beyond the margin
    assert th.passed and "within the allowed margin" in th.checks[0].message


def test_slice_regression_hidden_in_the_mean_fails_with_by() -> None:
    n = 60
    langs = ["en"] * 40 + ["de"] * 15 + ["fr"] * 5
    base = np.random.default_rng(2).uniform(0.3, 0.8, n).round(4).tolist()
    cand = list(base)
    for i in range(40):
        cand[i] = base[i] + 0.15  # English improves
    for i in range(40, 55):
        cand[i] = base[i] - 0.15  # German drops
    for i in range(55, 60):
        cand[i] = base[i] - 0.2  # French too, but only 5 queries
    c = result_from_values("c", cand, languages=langs)
    b = result_from_values("b", base, languages=langs)
    overall = run_gate(c, b, ["nDCG@10"])
    assert overall.checks[0].delta > 0.03
    assert overall.passed  # the mean hides it
    sliced = run_gate(c, b, ["nDCG@10"], by=["language"], min_n=10)
    assert not sliced.passed
    assert [f.label for f in sliced.failures] == ["language=de"]
    fr = next(x for x in sliced.checks if x.slice_value == "fr")
    assert not fr.gated and fr.passed and "not gated" in fr.message
    assert "language=de: nDCG@10 dropped by" in sliced.failures[0].message


def test_version_mismatch_refused_unless_allowed() -> None:
    v = _values()
    c = result_from_values("c", v, version="sha256:2222222222222222")
    b = result_from_values("b", v)
    with pytest.raises(UsageError, match="not comparable"):
        run_gate(c, b, ["nDCG@10"])
    gate = run_gate(c, b, ["nDCG@10"], allow_version_mismatch=True)
    assert gate.passed and gate.version_mismatch and gate.warnings


def test_pairs_by_query_id_and_reports_unpaired() -> None:
    base = _values(30)
    b = result_from_values("b", base)
    c = result_from_values("c", base[:25])
    c = c.model_copy(update={"per_query": list(reversed(c.per_query))})
    gate = run_gate(c, b, ["nDCG@10"])
    assert gate.passed and gate.n_paired == 25 and gate.unpaired_baseline == 5
    assert gate.checks[0].delta == 0


def test_bad_input() -> None:
    v = _values()
    c, b = result_from_values("c", v), result_from_values("b", v)
    with pytest.raises(UsageError, match="no metric"):
        run_gate(c, b, ["RR"])
    with pytest.raises(UsageError, match="language"):
        run_gate(c, b, ["nDCG@10"], by=["language"])
    with pytest.raises(UsageError, match="`mode`"):
        run_gate(c, b, ["nDCG@10"], mode="lenient")
    with pytest.raises(UsageError, match="`alpha`"):
        run_gate(c, b, ["nDCG@10"], alpha=0.7)
    other = result_from_values("x", v).model_copy(update={"per_query": []})
    with pytest.raises(UsageError, match="share no query"):
        run_gate(other, b, ["nDCG@10"])


def test_gate_result_round_trips() -> None:
    v = _values()
    gate = run_gate(result_from_values("c", v), result_from_values("b", v), ["nDCG@10"])
    assert GateResult.model_validate_json(gate.to_json()) == gate


def test_seeded_and_deterministic() -> None:
    base = _values()
    cand = [x - 0.01 + 0.05 * np.sin(i) for i, x in enumerate(base)]
    args = (result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"])
    assert run_gate(*args, seed=5).checks == run_gate(*args, seed=5).checks


def test_terminal_report_states_each_regression_once() -> None:
    import io

    from rich.console import Console

    from assay.report.gate_markdown import render_markdown
    from assay.report.gate_terminal import render_terminal

    base = _values()
    cand = [max(0.0, x - 0.1) for x in base]
    gate = run_gate(result_from_values("c", cand), result_from_values("b", base), ["nDCG@10"])
    buf = io.StringIO()
    render_terminal(gate, Console(file=buf, width=200, no_color=True))
    [line] = [ln for ln in buf.getvalue().splitlines() if "dropped by" in ln]
    assert line.startswith("regression: nDCG@10 dropped by 0.10")
    assert line.count("regression") == 1
    [md_line] = [ln for ln in render_markdown(gate).splitlines() if "dropped by" in ln]
    assert md_line.count("regression") == 0 and md_line.startswith("- nDCG@10")
