"""Metric definitions: small hashable values named as in ir_measures.

A :class:`Measure` only describes *what* to compute (family, cutoff, relevance
threshold, gain, family parameters). The families, their parameters and
formulas are declared once, in :mod:`assay.metrics.registry`; the vectorised
kernels live in :mod:`assay.metrics.kernels`.

Names follow ir_measures: ``P@5``, ``R@100``, ``RR@10``, ``nDCG@10``, ``AP``,
``Bpref``, ``infAP``, ``GMAP``, ``IPrec@0.5``, ``SetF``, ``RBP(p=0.8)``,
``ERR@20``, ``NumQ``, with parameters in parentheses: ``P(rel=2)@5``,
``nDCG(gain=exp)@10``, ``nDCG(gains=1:3,2:9)@10``, ``AP(judged_only=true)``
(unjudged documents removed before scoring, Sakai's condensed lists).
trec_eval names are accepted too (``ndcg_cut_10``, ``P.5``, ``bpref``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.metrics.registry import (
    ALIASES,
    FAMILY_LIST,
    PRESETS,
    REGISTRY,
    TREC_NAMES,
    usage_list,
)

#: trec_eval names written with a cutoff (``P_5``, ``ndcg_cut.10``), from the registry
_TREC_CUTS = "|".join(n for n, (_, form) in TREC_NAMES.items() if form == "cut")

Gain = Literal["linear", "exp"]

#: family -> (takes a cutoff, requires a cutoff, takes rel=, takes gain=); from the registry
FAMILIES: dict[str, tuple[bool, bool, bool, bool]] = {
    f.name: (f.cutoff != "none", f.cutoff == "required", f.takes_rel, "gain" in f.params)
    for f in FAMILY_LIST
}

#: Measures that never exceed 1 (counts and utility excluded).
BOUNDED = frozenset(f.name for f in FAMILY_LIST if f.bounded)

_PATTERN = re.compile(
    r"^\s*(?P<family>[A-Za-z_0-9-]+?)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<cutoff>[^\s]+))?\s*$"
)
#: parameters every family may take
_COMMON = ("judged_only",)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@dataclass(frozen=True, order=True)
class Measure:
    """A retrieval measure with its parameters; hashable, printable, parseable.

    ``rel`` is the minimum grade counted as relevant by binary measures
    (trec_eval ``-l``); nDCG ignores it and uses grades as gains, linear
    (``grade``) or exponential (``2**grade - 1``). ``params`` holds the other
    parameters of the family as sorted ``(name, value)`` string pairs, e.g.
    ``(("p", "0.8"),)`` for ``RBP(p=0.8)``.
    """

    family: str
    cutoff: int | None = None
    rel: int = 1
    gain: Gain = "linear"
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        fam = REGISTRY.get(self.family)
        if fam is None:
            raise UsageError(f"unknown measure family {self.family!r}; use one of {usage_list()}")
        if self.cutoff is not None and fam.cutoff == "none":
            raise UsageError(f"{self.family} takes no cutoff (remove '@{self.cutoff}')")
        if self.cutoff is None and fam.cutoff == "required":
            raise UsageError(f"{self.family} needs a cutoff, e.g. {fam.example}")
        if self.cutoff is not None:
            at_least("cutoff", self.cutoff)
        if self.rel != 1 and not fam.takes_rel:
            raise UsageError(f"{self.family} takes no rel= parameter")
        at_least("rel", self.rel)
        if self.gain not in ("linear", "exp"):
            raise UsageError(f"gain must be 'linear' or 'exp', got {self.gain!r}")
        if self.gain != "linear" and "gain" not in fam.params:
            raise UsageError(f"{self.family} takes no gain= parameter")
        given = dict(self.params)
        for key, value in given.items():
            if (key not in fam.params and key not in _COMMON) or key == "gain":
                allowed = [k for k in fam.params if k != "gain"] + list(_COMMON)
                raise UsageError(
                    f"{self.family} takes no {key}= parameter (parameters: {', '.join(allowed)})"
                )
            _check_value(self.family, key, value)
        for key, default in fam.params.items():
            if default is None and key not in given:
                raise UsageError(f"{self.family} needs {key}=..., e.g. {fam.example}")

    def param(self, key: str) -> str:
        """The value of a family parameter (its default when not given)."""
        given = dict(self.params)
        if key in given:
            return given[key]
        default = REGISTRY[self.family].params.get(key)
        return "" if default is None else default

    @property
    def judged_only(self) -> bool:
        """True when unjudged documents are removed before scoring."""
        return dict(self.params).get("judged_only") == "true"

    @property
    def name(self) -> str:
        """Canonical ir_measures-style name, e.g. ``P(rel=2)@5``."""
        parts = []
        if self.rel != 1:
            parts.append(f"rel={self.rel}")
        if self.gain != "linear":
            parts.append(f"gain={self.gain}")
        recall = None
        for key, value in self.params:
            if key == "recall" and self.family == "IPrec":
                recall = value
            else:
                parts.append(f"{key}={value}")
        text = self.family + (f"({','.join(parts)})" if parts else "")
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        elif recall is not None:
            text += f"@{recall}"
        return text

    @property
    def bounded(self) -> bool:
        """True when values lie in [0, 1]."""
        return self.family in BOUNDED

    @property
    def aggregate(self) -> str:
        """How per-query values combine: ``mean``, ``sum`` or ``gmean``."""
        return REGISTRY[self.family].aggregate

    def __str__(self) -> str:
        return self.name


def _check_value(family: str, key: str, value: str) -> None:
    ok = True
    if key == "judged_only":
        ok = value in ("true", "false")
    elif key in ("p", "recall", "mult", "beta", "max", "alpha"):
        ok = bool(_NUMBER.fullmatch(value))
        if ok and key in ("p", "recall", "alpha"):
            ok = 0.0 <= float(value) <= 1.0 and (key != "p" or float(value) < 1.0)
    elif key in ("coef", "at"):
        items = value.split(",")
        ok = all(_NUMBER.fullmatch(v) for v in items) and (key != "coef" or len(items) == 4)
    elif key == "gains":
        ok = value == "" or all(
            re.fullmatch(r"[+-]?\d+", a) and _NUMBER.fullmatch(b)
            for a, _, b in (item.partition(":") for item in value.split(","))
        )
    if not ok:
        raise UsageError(f"bad value {value!r} for {key}= in {family}")


def parse_measure(text: str | Measure) -> Measure:
    """Parse an ir_measures-style name (``nDCG@10``, ``P(rel=2)@5``, ``MRR@10``).

    Aliases such as ``MRR``, ``MAP``, ``Recall@10`` and trec_eval names such as
    ``ndcg_cut_10`` or ``P.5`` are accepted and canonicalised. Raises
    :class:`UsageError` with the accepted names on anything else.
    """
    if isinstance(text, Measure):
        return text
    raw = str(text)
    trec = re.fullmatch(rf"\s*({_TREC_CUTS})[_.](\d+|\d*\.\d+)\s*", raw)
    if trec:
        fam = ALIASES[trec.group(1).lower()]
        raw = f"{fam}@{trec.group(2)}"
        if fam == "RprecMult":
            raw = f"RprecMult(mult={trec.group(2)})"
    m = _PATTERN.match(raw)
    if not m:
        raise UsageError(_unknown(raw))
    spelled = m.group("family").lower()
    family, preset = PRESETS.get(spelled, (ALIASES.get(spelled), {}))
    if family is None:
        raise UsageError(_unknown(raw))
    rel, gain, params = 1, "linear", {**preset, **_params(m.group("params") or "", raw)}
    if family == "NumRet" and "rel" in params:  # ir_measures spells NumRelRet so
        family = "NumRelRet"
    if "rel" in params:
        value = params.pop("rel")
        if not re.fullmatch(r"\d+", value):
            raise UsageError(f"bad parameter rel={value} in {raw!r}: use rel=N")
        rel = int(value)
    if "gain" in params:
        gain = params.pop("gain")
        if gain not in ("linear", "exp"):
            raise UsageError(f"bad parameter gain={gain} in {raw!r}: use gain=linear|exp")
    cutoff = None
    text_cut = m.group("cutoff")
    if text_cut is not None and family == "IPrec":
        params["recall"] = _number(text_cut)
    elif text_cut is not None:
        if not re.fullmatch(r"\d{1,9}", text_cut):
            raise UsageError(f"bad cutoff in {raw!r}: k must be a whole number from 1 to 10^9")
        cutoff = int(text_cut)
    return Measure(family, cutoff, rel, gain, tuple(sorted(params.items())))  # type: ignore[arg-type]


def _params(text: str, raw: str) -> dict[str, str]:
    """``key=value`` pairs; commas inside a value (``gains=1:3,2:9``) continue it."""
    out: dict[str, str] = {}
    key = None
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, eq, value = part.partition("=")
        if eq and re.fullmatch(r"[A-Za-z_]+", name.strip()):
            key = name.strip()
            out[key] = value.strip()
        elif key is not None and key in ("gains", "coef", "at"):
            out[key] += "," + part
        else:
            raise UsageError(f"bad parameter {part!r} in {raw!r}: write name=value")
    for key in ("p", "recall", "mult", "beta", "max"):
        if key in out and _NUMBER.fullmatch(out[key]):
            out[key] = _number(out[key])
    if out.get("judged_only") in ("1", "True", "yes"):
        out["judged_only"] = "true"
    if out.get("judged_only") in ("0", "False", "no", "false"):
        del out["judged_only"]
    if "gains" in out:  # ir_measures writes a dict: gains={0:0,1:1,2:3}
        out["gains"] = (
            ",".join(
                f"{int(a)}:{_number(b.strip())}"
                for a, _, b in (i.partition(":") for i in out["gains"].strip("{} ").split(","))
                if a.strip()
            )
            if re.fullmatch(r"[{}\s\d:,.+-]*", out["gains"])
            else out["gains"]
        )
        if out.get("gain", "linear") == "linear":  # a grade gains itself unless listed
            out["gains"] = ",".join(
                i for i in out["gains"].split(",") if i and i.split(":")[0] != i.split(":")[1]
            )
        if not out["gains"]:
            del out["gains"]
    return out


def _number(text: str) -> str:
    """A number in its shortest canonical spelling (``0.80`` -> ``0.8``, ``1.0`` -> ``1``)."""
    if not _NUMBER.fullmatch(text):
        raise UsageError(f"bad number {text!r}")
    value = float(text)
    return str(int(value)) if value == int(value) else repr(value)


def parse_measures(texts: list[str] | tuple[str, ...] | None) -> list[Measure]:
    """Parse several names, dropping repeats and keeping order; default ``R@5 R@10 RR nDCG@10``."""
    if not texts:
        texts = list(DEFAULT_MEASURES)
    out: dict[Measure, None] = {}
    for t in texts:
        out[parse_measure(t)] = None
    return list(out)


DEFAULT_MEASURES = ("R@5", "R@10", "RR", "nDCG@10")


def _unknown(raw: str) -> str:
    level = re.search(r"-l(\d+)", raw)
    hint = f" (ranx's -l{level.group(1)} is written rel={level.group(1)})" if level else ""
    return f"unknown measure {raw!r}{hint}; use one of {usage_list()} (e.g. nDCG@10, P(rel=2)@5)"


@lru_cache(maxsize=1024)
def is_count(metric: str | None) -> bool:
    """True when ``metric`` names a count (registry aggregation ``sum``: ``NumRet``...).

    A count sums over queries on every summary line, as trec_eval's does, and
    prints as a whole number; an unknown name (an older result's) is no count.
    """
    if not metric:
        return False
    try:
        return parse_measure(metric).aggregate == "sum"
    except UsageError:
        return False
