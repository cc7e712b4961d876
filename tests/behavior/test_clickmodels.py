"""Click models: hand-computed cases, exact DBN posteriors, and recovery of known parameters.

Recovery tests draw seeded logs from known parameters and check the EM fit
against them; each tolerance is a few standard errors of the estimate at the
log's size (given in the test).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers_behavior import shuffled_lists, simulate_dbn, simulate_pbm, table_from

from assay.behavior.clickmodels import (
    ctr_by_position,
    expected_clicks,
    fit_coec,
    fit_ctr,
    fit_pbm,
    wilson,
)
from assay.behavior.dbn import estep, fit_dbn
from assay.behavior.lists import Lists


def test_ctr_and_coec_by_hand() -> None:
    # three lists over docs d0, d1, d2; d2 only ever at rank 1
    t = table_from([[0, 1], [1, 0], [0, 2]], [[1, 0], [1, 1], [0, 1]])
    ctr, imps = ctr_by_position(t)
    assert imps.tolist() == [3, 3]
    assert ctr.tolist() == pytest.approx([2 / 3, 2 / 3])
    fit = fit_ctr(t)
    assert fit.estimate.tolist() == pytest.approx([2 / 3, 1 / 2, 1.0])
    # expected clicks: d0 at ranks 0, 1, 0 -> 3 * 2/3; d1 at 1, 0 -> 4/3; d2 at 1 -> 2/3
    assert expected_clicks(t).tolist() == pytest.approx([2.0, 4 / 3, 2 / 3])
    coec = fit_coec(t, cap=1.4)
    assert coec.estimate.tolist() == pytest.approx([1.0, 0.75, 1.4])  # d2: 1.5 capped at 1.4


def test_wilson_matches_statsmodels_formula() -> None:
    # Wilson 95% interval of 3 successes in 10 (Agresti & Coull 1998 table): 0.1078, 0.6032
    low, high = wilson(np.array([3.0]), np.array([10.0]))
    assert low[0] == pytest.approx(0.1078, abs=1e-4) and high[0] == pytest.approx(0.6032, abs=1e-4)


def test_coec_interval_is_the_exact_poisson_interval() -> None:
    from scipy.stats import poisson

    t = table_from([[0, 1]] * 4, [[1, 0], [1, 0], [0, 1], [0, 0]])
    fit = fit_coec(t, cap=100)
    e = expected_clicks(t)[0]  # 4 impressions at rank 0, CTR 3/4 -> 3
    # the upper bound mu solves P(X <= 2 | mu) = 0.025 (Garwood)
    mu = fit.high[0] * e
    assert poisson.cdf(2, mu) == pytest.approx(0.025, abs=1e-4)


def test_pbm_single_rank_is_ctr() -> None:
    # with one rank, examination is fixed at 1 and attractiveness is the CTR
    t = table_from([[0], [0], [1], [0]], [[1], [0], [1], [1]])
    fit = fit_pbm(t)
    assert fit.estimate.tolist() == pytest.approx([2 / 3, 1.0], abs=1e-6)


def _brute_dbn(docs: list[int], clicks: list[int], a, s, gamma):
    """Exact posteriors by enumerating attraction, satisfaction and continuation."""
    n = len(docs)
    total = 0.0
    acc = {"a": np.zeros(n), "s": np.zeros(n), "num_g": np.zeros(n), "den_g": np.zeros(n)}
    for att, sat, cont in itertools.product(
        itertools.product((0, 1), repeat=n),
        itertools.product((0, 1), repeat=n),
        itertools.product((0, 1), repeat=n),
    ):
        p, e = 1.0, 1
        den = np.zeros(n)
        num = np.zeros(n)
        for j, d in enumerate(docs):
            p *= a[d] if att[j] else 1 - a[d]
            c = e * att[j]
            if c != clicks[j]:
                p = 0.0
                break
            if c:
                p *= s[d] if sat[j] else 1 - s[d]
            elif sat[j]:  # S only exists after a click: sum it out once
                p = 0.0
                break
            if e and not (c and sat[j]):
                p *= gamma if cont[j] else 1 - gamma
                den[j], num[j] = 1, cont[j]
                e = cont[j]
            elif cont[j]:
                p = 0.0
                break
            else:
                e = 0
        if p == 0.0:
            continue
        total += p
        acc["a"] += p * np.asarray(att)
        acc["s"] += p * np.asarray(sat) * np.asarray(clicks)
        acc["num_g"] += p * num
        acc["den_g"] += p * den
    return total, {k: v / total for k, v in acc.items()}


@pytest.mark.parametrize("clicks", list(itertools.product((0, 1), repeat=3)))
def test_dbn_estep_equals_enumeration(clicks: tuple[int, ...]) -> None:
    a = np.array([0.7, 0.4, 0.2])
    s = np.array([0.6, 0.3, 0.5])
    gamma = 0.8
    lists = Lists(np.array([[0, 1, 2]]), np.array([clicks], dtype=bool))
    stats = estep(lists, a, s, gamma)
    total, post = _brute_dbn([0, 1, 2], list(clicks), a, s, gamma)
    assert np.exp(stats["loglik"][0]) == pytest.approx(total, rel=1e-9)
    assert stats["num_a"][0] == pytest.approx(post["a"], abs=1e-12)
    assert stats["num_s"][0] == pytest.approx(post["s"], abs=1e-12)
    # the last rank has no next result: its continuation carries no information
    assert stats["num_g"][0][:2] == pytest.approx(post["num_g"][:2], abs=1e-12)
    assert stats["den_g"][0][:2] == pytest.approx(post["den_g"][:2], abs=1e-12)


def test_em_never_lowers_the_likelihood() -> None:
    rng = np.random.default_rng(7)
    docs = shuffled_lists(rng, 3, 5, 400)
    clicks = simulate_dbn(rng, rng.uniform(0.1, 0.9, 15), rng.uniform(0.1, 0.9, 15), 0.8, docs)
    t = table_from(docs.tolist(), clicks.tolist())
    for fit in (fit_pbm(t), fit_dbn(t)):
        assert np.all(np.diff(fit.loglik) >= -1e-8 * abs(fit.loglik[-1])), fit.model


def test_pbm_recovers_known_parameters() -> None:
    rng = np.random.default_rng(2026)
    n_queries, n_docs = 10, 8
    alpha = rng.uniform(0.05, 0.95, n_queries * n_docs)
    gamma = np.array([1.0, 0.8, 0.65, 0.5, 0.4, 0.3, 0.25, 0.2])
    docs = shuffled_lists(rng, n_queries, n_docs, 30_000)
    t = table_from(docs.tolist(), simulate_pbm(rng, alpha, gamma, docs).tolist())
    fit = fit_pbm(t)
    assert fit.converged
    # ~3,000 impressions per pair, ~1,500 examined: SE(alpha) <= 0.013; 0.06 is > 4 SE
    assert np.max(np.abs(fit.estimate - alpha)) < 0.06
    assert np.mean(np.abs(fit.estimate - alpha)) < 0.015
    # 30,000 impressions per rank: SE(gamma) < 0.01
    assert np.max(np.abs(np.array(fit.params["examination_by_rank"]) - gamma)) < 0.03
    covered = (fit.low <= alpha) & (alpha <= fit.high)
    assert covered.mean() > 0.85  # nominal 95% interval on effective trials


def test_dbn_recovers_known_parameters() -> None:
    rng = np.random.default_rng(15)
    n_queries, n_docs = 8, 6
    a = rng.uniform(0.1, 0.9, n_queries * n_docs)
    s = rng.uniform(0.1, 0.9, n_queries * n_docs)
    docs = shuffled_lists(rng, n_queries, n_docs, 40_000)
    t = table_from(docs.tolist(), simulate_dbn(rng, a, s, 0.85, docs).tolist())
    fit = fit_dbn(t)
    assert fit.converged
    assert fit.params["gamma"] == pytest.approx(0.85, abs=0.02)
    a_hat = np.array(fit.params["attractiveness"])
    s_hat = np.array(fit.params["satisfaction"])
    # 5,000 lists per query: every pair examined >= ~1,500 times (SE(a) <= 0.013),
    # clicked >= ~150 times (SE(s) <= 0.04)
    assert np.max(np.abs(a_hat - a)) < 0.06
    assert np.max(np.abs(s_hat - s)) < 0.15
    assert np.mean(np.abs(s_hat - s)) < 0.04
    assert np.max(np.abs(fit.estimate - a * s)) < 0.08
    covered = (fit.low <= a * s) & (a * s <= fit.high)
    assert covered.mean() > 0.85  # product of two 95% intervals, on estimated trials
