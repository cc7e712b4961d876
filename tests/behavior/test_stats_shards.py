"""Click-model statistics in shards: any number of shards reduces to the whole log's.

The whole log read as one shard is the local path; ``k`` shards by ``query_id`` reduced
is the Ray path (without Ray: the same two functions). Statistics, fits, errors and
counts must be the same to the last bit, and the counts must equal the click table's
(the table is checked against the raw JSON lines in test_implicit.py).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from assay.behavior.clickmodels import fit_coec, fit_pbm
from assay.behavior.dbn import fit_dbn
from assay.behavior.read import read_ubi
from assay.behavior.stats import StatsParams, of_log, reduce_stats, shard_stats, shards_of
from assay.behavior.table import build_click_table
from assay.core.errors import InputError

#: fractional weights: clicks sum to non-integers, which must still add up exactly
WEIGHTS = {"click": 1.0, "add_to_cart": 0.3, "purchase": 0.7}


@pytest.fixture(scope="module")
def log(shared_data: Path):
    return read_ubi(shared_data / "ubi_chorus" / "ubi_queries_events.ndjson")


def _sharded(log, params: StatsParams, k: int):
    return reduce_stats([shard_stats(params, part) for part in shards_of(log, k)], params)


def _params(log, positions: int, application: str | None) -> StatsParams:
    return StatsParams(positions, WEIGHTS, application, n_events=len(log.events))


def _same(a, b) -> None:
    for name, value in a.__dict__.items():
        other = b.__dict__[name]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and np.array_equal(value, other), name
        else:
            assert value == other, name


@pytest.mark.parametrize(("application", "positions"), [("esci_ubi_sample", 0), ("Chorus", 1)])
def test_shards_reduce_to_the_whole_log(log, application: str, positions: int) -> None:
    params = _params(log, positions, application)
    whole = of_log(log, params)
    table = build_click_table(log, positions=positions, weights=WEIGHTS, application=application)
    assert whole.pairs == table.pairs and whole.query_texts == table.query_texts
    assert whole.pair_impressions().tolist() == table.pair_impressions().tolist()
    assert np.allclose(whole.pair_clicks(), table.pair_clicks(), rtol=0, atol=1e-12)
    assert whole.counts == table.counts and whole.assumptions == table.assumptions
    for k in (3, 16):
        sharded = _sharded(log, params, k)
        _same(sharded, whole)
        for fit in (fit_pbm, fit_dbn, fit_coec):
            left, right = fit(sharded), fit(whole)
            assert np.array_equal(left.estimate, right.estimate)
            assert left.loglik == right.loglik and left.params == right.params


def test_dbn_on_distinct_lists_is_dbn_on_every_list(log) -> None:
    """The DBN fit weights each distinct list by its count: the same as one row per list."""
    table = build_click_table(log, positions=0, application="esci_ubi_sample")
    stats = of_log(log, _params(log, 0, "esci_ubi_sample"))
    assert stats.list_count.sum() == len(table.instance_ids) > len(stats.list_count)
    fit = fit_dbn(stats, max_iter=30)
    from assay.behavior.dbn import estep
    from assay.behavior.lists import compact

    lists = compact(table)  # every list, unweighted, one E-step over all of them
    a, s, g = fit.params["attractiveness"], fit.params["satisfaction"], fit.params["gamma"]
    every = estep(lists, np.asarray(a), np.asarray(s), g)["loglik"].sum()
    distinct = estep(
        type(lists)(stats.list_pid, stats.list_click), np.asarray(a), np.asarray(s), g
    )["loglik"]
    assert (distinct * stats.list_count).sum() == pytest.approx(every, rel=1e-12)


def test_a_bad_record_gives_the_same_error_in_any_shards(log) -> None:
    params = _params(log, 1, None)  # the ESCI sample counts from 0
    with pytest.raises(InputError) as whole:
        of_log(log, params)
    for k in (3, 8):
        with pytest.raises(InputError) as sharded:
            _sharded(log, params, k)
        assert str(sharded.value) == str(whole.value)
    back = pickle.loads(pickle.dumps(whole.value))  # as a Ray task sends it
    assert str(back) == str(whole.value) and back.problems == whole.value.problems
    chorus = _params(log, 0, "Chorus")  # Chorus counts from 1: a check over the whole log
    with pytest.raises(InputError) as whole:
        of_log(log, chorus)
    with pytest.raises(InputError) as sharded:
        _sharded(log, chorus, 4)
    assert str(sharded.value) == str(whole.value)
