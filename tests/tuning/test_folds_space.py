"""Folds cover every query once and are balanced; the choice per fold is the best on the
other folds, ties to the first set; --param values are read as TOML and applied by key."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import UsageError
from assay.tuning import folds, space


@settings(max_examples=200, deadline=None)
@given(
    strata=st.lists(st.sampled_from(["en", "fr", "de"]), min_size=2, max_size=80),
    k=st.integers(2, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_query_is_held_out_exactly_once(strata: list[str], k: int, seed: int) -> None:
    if k > len(strata):
        with pytest.raises(UsageError):
            folds.deal(len(strata), k, seed, strata)
        return
    fold_of = folds.deal(len(strata), k, seed, strata)
    assert len(fold_of) == len(strata) and set(fold_of) <= set(range(k))
    sizes = np.bincount(fold_of, minlength=k)
    assert sizes.max() - sizes.min() <= 1 and sizes.min() >= 1
    for stratum in set(strata):
        mine = [f for f, s in zip(fold_of, strata, strict=True) if s == stratum]
        counts = np.bincount(mine, minlength=k)
        assert counts.max() - counts.min() <= 1
    assert folds.deal(len(strata), k, seed, strata) == fold_of  # seeded


@settings(max_examples=200, deadline=None)
@given(
    sets=st.integers(1, 6),
    queries=st.integers(4, 30),
    k=st.integers(2, 4),
    seed=st.integers(0, 1000),
    levels=st.integers(1, 4),
)
def test_each_fold_chooses_the_best_set_on_the_other_folds(
    sets: int, queries: int, k: int, seed: int, levels: int
) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels + 1, size=(sets, 2, queries)) / levels  # many ties
    fold_of = folds.deal(queries, k, seed)
    outcomes = folds.cross_validate(values, fold_of)
    assert sorted(q for o in outcomes for q in o.queries) == list(range(queries))
    for o in outcomes:
        train = [q for q in range(queries) if fold_of[q] != o.fold]
        means = [float(np.mean(values[s, 0, train])) for s in range(sets)]
        top = max(means)
        assert o.chosen == min(s for s in range(sets) if means[s] >= top - 1e-12)
        assert o.train[0] == pytest.approx(top)
        held = [q for q in range(queries) if fold_of[q] == o.fold]
        assert o.held_out[1] == pytest.approx(float(np.mean(values[o.chosen, 1, held])))
    gaps = [o.train[0] - o.held_out[0] for o in outcomes]
    assert folds.optimism(outcomes)[0] == pytest.approx(sum(gaps) / len(gaps))


def test_param_values_are_toml_or_bare_words() -> None:
    assert space.parse_param("k1=0.6,0.9,1") == ("k1", [0.6, 0.9, 1])
    assert space.parse_param("method=rrf,minmax") == ("method", ["rrf", "minmax"])
    assert space.parse_param('method="rrf"') == ("method", ["rrf"])
    assert space.parse_param("weights=[0.3,0.7],[1,1]") == ("weights", [[0.3, 0.7], [1, 1]])
    assert space.parse_param("flag=true,false") == ("flag", [True, False])
    with pytest.raises(UsageError, match="--param"):
        space.parse_param("k1")
    with pytest.raises(UsageError, match="twice"):
        space.parse_params(["k1=1", "k1=2"])


def test_dotted_keys_reach_nested_tables_and_members() -> None:
    hybrid = {"type": "hybrid", "systems": ["bm25", "vec"], "method": "minmax"}
    filled = space.prefill(hybrid, {"weights.vec": [0.5]})
    assert space.apply(filled, {"weights.vec": 0.5}) == {**hybrid, "weights": [1.0, 0.5]}
    python = {"type": "python", "function": "m:f", "params": {"a": 1}}
    assert space.apply(python, {"params.seed": 3})["params"] == {"a": 1, "seed": 3}
    assert python["params"] == {"a": 1}  # the base table is left as it was
    body = {"type": "http", "url": "http://x", "body": {"q": "{query}", "boost": {"title": 1}}}
    assert space.apply(body, {"body.boost.title": 3})["body"]["boost"] == {"title": 3}
    with pytest.raises(UsageError, match="not an index"):
        space.apply(filled, {"weights.other": 1.0})


def test_a_set_the_table_model_refuses_names_the_option() -> None:
    bm25 = {"type": "bm25"}
    space.check(space.apply(bm25, {"k1": 1.2, "b": 0.75}), {"k1": 1.2, "b": 0.75})
    with pytest.raises(UsageError, match="--param b=2") as bad:
        space.check(space.apply(bm25, {"b": 2}), {"b": 2})
    assert bad.value.parameter == "--param"
    with pytest.raises(UsageError, match="unknown key 'k3' for a bm25 system"):
        space.check(space.apply(bm25, {"k3": 1}), {"k3": 1})
