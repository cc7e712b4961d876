"""The measure registry: every family is complete, parseable and keeps its declarations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.metrics import diversity, kernels, kernels_trec
from assay.metrics.engine import aggregate, compute
from assay.metrics.measures import Measure, parse_measure
from assay.metrics.registry import ALIASES, FAMILY_LIST, REGISTRY, TREC_NAMES, usage_list
from assay.runs.models import Run

FAMILIES = [f.name for f in FAMILY_LIST]


@pytest.mark.parametrize("name", FAMILIES)
def test_family_is_complete(name: str) -> None:
    fam = REGISTRY[name]
    assert fam.doc and fam.example
    assert any(hasattr(module, fam.kernel) for module in (kernels, kernels_trec, diversity))
    m = parse_measure(fam.example)
    assert m.family == name
    assert parse_measure(m.name) == m
    assert fam.usage in usage_list()


def test_aliases_do_not_collide() -> None:
    seen: dict[str, str] = {}
    for fam in FAMILY_LIST:
        for spelling in {s.lower() for s in (fam.name, *fam.aliases, *(t for t, _ in fam.trec))}:
            assert seen.setdefault(spelling, fam.name) == fam.name, spelling
    assert set(seen) == set(ALIASES)


def test_unknown_measure_lists_the_registry() -> None:
    with pytest.raises(UsageError) as exc:
        parse_measure("nope@10")
    for fam in FAMILY_LIST:
        assert fam.usage in str(exc.value)


@pytest.mark.parametrize(
    ("text", "family", "params"),
    [
        ("nDCG(gains=1:3,2:9)@10", "nDCG", (("gains", "1:3,2:9"),)),
        ("RBP(p=0.8)", "RBP", (("p", "0.8"),)),
        ("IPrec@0.5", "IPrec", (("recall", "0.5"),)),
        ("AP(judged_only=true)", "AP", (("judged_only", "true"),)),
        ("Rprec_mult_0.20", "RprecMult", (("mult", "0.2"),)),
        ("gm_map", "GMAP", ()),
        ("unj_5", "Unjudged", ()),
    ],
)
def test_parameters(text: str, family: str, params: tuple) -> None:
    m = parse_measure(text)
    assert (m.family, m.params) == (family, params)


@pytest.mark.parametrize("bad", ["RBP(p=2)", "RprecMult", "SetF(beta=x)", "P(p=0.5)@5"])
def test_bad_parameters(bad: str) -> None:
    with pytest.raises(UsageError):
        parse_measure(bad)


def test_every_trec_name_parses_to_its_family() -> None:
    for name, (family, form) in TREC_NAMES.items():
        text = {"cut": f"{name}_5", "plain": name, "param": name, "gains": name}[form]
        if name in ("iprec_at_recall", "Rprec_mult"):
            text = f"{name}_0.50"
        assert parse_measure(text).family == family, text


@st.composite
def cases(draw):
    docs = [f"d{i}" for i in range(8)]
    qrels = {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        qrels[f"q{q}"] = {d: draw(st.integers(-2, 3)) for d in judged}
    run = {}
    for q in qrels:
        if draw(st.booleans()):
            ret = draw(st.lists(st.sampled_from([*docs, "u"]), unique=True, min_size=1))
            run[q] = [(d, float(draw(st.integers(0, 3)))) for d in ret]
    return qrels, run or {"q0": [("d0", 1.0)]}


def _examples() -> list[Measure]:
    out = [parse_measure(f.example) for f in FAMILY_LIST]
    return out + [parse_measure(t) for t in ("P(judged_only=true)@5", "nDCG(gains=0:1,2:5)")]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_declared_bounds_missing_values_and_aggregates(case) -> None:
    qrels, run = case
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qrels], qrels)
    table = compute(judgments, Run.from_dict(run), _examples(), missing="zero")
    for m, values in table.values.items():
        fam = REGISTRY[m.family]
        low, high = fam.bounds
        assert np.isfinite(values).all(), m.name
        assert low is None or (values >= low - 1e-12).all(), m.name
        assert high is None or (values <= high + 1e-12).all(), m.name
        if fam.missing is not None:
            assert (values[~table.in_run] == fam.missing).all(), m.name
        if fam.aggregate == "sum":
            assert aggregate(m, values) == pytest.approx(values.sum())
        elif fam.aggregate == "mean":
            assert aggregate(m, values) == pytest.approx(values.mean())


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("P(rel=2)@5", "P"),
        ("nDCG(judged_only=True)@10", "nDCG"),
        ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG"),
        ("NumRet(rel=1)", "NumRelRet"),
        ("IPrec@0.5", "IPrec"),
        ("SetF(beta=0.5)", "SetF"),
        ("ERR@20", "ERR"),
        ("Bpref", "Bpref"),
        ("infAP", "infAP"),
        ("NumQ", "NumQ"),
    ],
)
def test_ir_measures_spellings(text: str, family: str) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    m = parse_measure(str(ir_measures.parse_measure(text)))
    assert m.family == family
    assert parse_measure(text) == m
