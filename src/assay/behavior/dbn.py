"""The dynamic Bayesian network click model (Chapelle and Zhang, 2009), fitted by EM.

A user examines the first result; on an examined result they click when
attracted (probability ``a`` of the pair); after a click they are satisfied
with probability ``s`` and stop; otherwise (no click, or not satisfied) they
examine the next result with probability ``gamma``. Result lists are taken in
rank order with unlogged ranks closed up.

The E-step is exact: with ``l`` the last click of a list, every result up to
``l`` was examined; after it the posterior of examination follows from a
backward pass (``tail[j]``: the probability of no click from ``j`` on, given
``j`` is examined) and a forward product.
"""

from __future__ import annotations

import numpy as np

from assay.behavior.clickmodels import _EPS, Fit, _flat, _ratio, wilson
from assay.behavior.lists import Lists
from assay.behavior.stats import ClickStats, as_stats
from assay.behavior.table import ClickTable


def estep(lists: Lists, a: np.ndarray, s: np.ndarray, gamma: float) -> dict[str, np.ndarray]:
    """Expected sufficient statistics per cell and the log-likelihood per list.

    Returns ``num_a`` (P(attracted | clicks)), ``num_s`` (P(satisfied | clicks),
    clicked cells), ``num_g`` / ``den_g`` (P(continue and examined next) / P(examined,
    not satisfied), cells with a next one), ``examined`` (P(examined | clicks))
    and ``loglik`` (per list).
    """
    valid, click = lists.valid, lists.click
    n_lists, width = lists.pid.shape
    A = np.where(valid, a[np.maximum(lists.pid, 0)], 0.0)
    S = np.where(valid, s[np.maximum(lists.pid, 0)], 0.0)
    cols = np.arange(width)
    last = np.where(click.any(axis=1), width - 1 - np.argmax(click[:, ::-1], axis=1), -1)
    tail = np.ones((n_lists, width + 1))
    for j in range(width - 1, -1, -1):
        step = (1 - A[:, j]) * ((1 - gamma) + gamma * tail[:, j + 1])
        tail[:, j] = np.where(valid[:, j], step, 1.0)
    rows = np.arange(n_lists)
    has = last >= 0
    lc = np.maximum(last, 0)
    s_l = np.where(has, S[rows, lc], 0.0)
    tail_next = tail[rows, np.where(has, last + 1, 0)]
    z = np.where(has, s_l + (1 - s_l) * ((1 - gamma) + gamma * tail_next), tail[:, 0])
    e_prior = np.where(has, (1 - s_l) * gamma, 1.0)
    start = last + 1
    examined = np.where(cols[None, :] <= last[:, None], 1.0, 0.0)
    f = np.zeros(n_lists)
    for j in range(width):
        f = np.where(start == j, e_prior, f)
        after = (j >= start) & valid[:, j]
        examined[:, j] = np.where(after, f * tail[:, j] / np.maximum(z, _EPS), examined[:, j])
        f = f * (1 - A[:, j]) * gamma
    examined = np.where(valid, examined, 0.0)
    num_a = np.where(click, 1.0, A * (1 - examined))
    sat_last = np.where(has, s_l / np.maximum(z, _EPS), 0.0)
    num_s = np.where(click & (cols[None, :] == last[:, None]), sat_last[:, None], 0.0)
    nxt = np.zeros_like(examined)
    nxt[:, :-1] = examined[:, 1:]
    has_next = np.zeros_like(valid)
    has_next[:, :-1] = valid[:, 1:]
    den_g = np.where(cols[None, :] < last[:, None], 1.0, examined)
    not_sat_last = np.where(has, 1 - sat_last, 0.0)
    den_g = np.where(cols[None, :] == last[:, None], not_sat_last[:, None], den_g)
    den_g = np.where(has_next, den_g, 0.0)
    num_g = np.where(has_next, nxt, 0.0)
    prefix = np.where(click, A * (1 - S) * gamma, (1 - A) * gamma)
    before = (cols[None, :] < last[:, None]) & valid
    loglik = np.log(np.where(before, prefix, 1.0)).sum(axis=1)
    loglik += np.where(has, np.log(np.maximum(A[rows, lc], _EPS)), 0.0) + np.log(
        np.maximum(z, _EPS)
    )
    return {
        "num_a": num_a,
        "num_s": num_s,
        "num_g": num_g,
        "den_g": den_g,
        "examined": examined,
        "loglik": loglik,
    }


def fit_dbn(
    data: ClickTable | ClickStats,
    *,
    gamma: float | None = None,
    max_iter: int = 500,
    tol: float = 1e-9,
    z: float = 1.96,
) -> Fit:
    """Fit a, s (per pair) and gamma (shared; fixed when given) by EM.

    The E-step runs once per distinct result list (pairs and clicks), its statistics
    weighted by how often the list was seen (:mod:`assay.behavior.stats`)."""
    st = as_stats(data)
    lists = Lists(st.list_pid, st.list_click)
    valid, click = lists.valid, lists.click
    seen = st.list_count.astype(np.float64)
    times = np.broadcast_to(seen[:, None], lists.pid.shape)
    n_pairs = len(st.pairs)
    pid = lists.pid[valid]
    clicked = lists.pid[click]
    shown_n = np.bincount(pid, times[valid], n_pairs)
    click_n = np.bincount(clicked, times[click], n_pairs)
    a = np.full(n_pairs, 0.5)
    s = np.full(n_pairs, 0.5)
    g = 0.5 if gamma is None else float(gamma)
    history: list[float] = []
    converged = False
    for _ in range(max_iter):
        stats = estep(lists, a, s, g)
        history.append(float((stats["loglik"] * seen).sum()))
        num_a = np.bincount(pid, (stats["num_a"] * times)[valid], n_pairs)
        num_s = np.bincount(clicked, (stats["num_s"] * times)[click], n_pairs)
        new_a = np.clip(_ratio(num_a, shown_n, a), _EPS, 1 - _EPS)
        new_s = np.clip(_ratio(num_s, click_n, s), 0.0, 1 - _EPS)
        new_g = g
        if gamma is None:
            den = (stats["den_g"] * times).sum()
            num = (stats["num_g"] * times).sum()
            new_g = float(np.clip(num / den, _EPS, 1 - _EPS)) if den > 0 else g
        delta = max(
            np.max(np.abs(new_a - a), initial=0),
            np.max(np.abs(new_s - s), initial=0),
            abs(new_g - g),
        )
        a, s, g = new_a, new_s, new_g
        if delta < 1e-6 or _flat(history, tol):
            converged = True
            break
    trials = np.bincount(pid, (estep(lists, a, s, g)["examined"] * times)[valid], n_pairs)
    a_low, a_high = wilson(a * trials, trials, z)
    s_low, s_high = wilson(s * click_n, click_n, z)
    params = {"gamma": g, "attractiveness": a.tolist(), "satisfaction": s.tolist()}
    return Fit(
        "dbn", a * s, a_low * s_low, a_high * s_high, params, len(history), converged, history
    )
