"""Metric definitions: small hashable values named as in ir_measures.

A :class:`Measure` only describes *what* to compute (family, cutoff, relevance
threshold, gain). The vectorised kernels that compute it live in
:mod:`assay.metrics.engine`.

Names follow ir_measures: ``P@5``, ``R@100``, ``RR``, ``RR@10``, ``nDCG``,
``nDCG@10``, ``AP``, ``AP@100``, ``Rprec``, ``Success@10``, ``Judged@10``,
``NumRet``, ``NumRel``, ``NumRelRet``, with parameters in parentheses:
``P(rel=2)@5``, ``nDCG(gain=exp)@10``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assay.errors import UsageError

Gain = Literal["linear", "exp"]

#: family -> (takes a cutoff, requires a cutoff, takes rel=, takes gain=)
FAMILIES: dict[str, tuple[bool, bool, bool, bool]] = {
    "P": (True, True, True, False),
    "R": (True, True, True, False),
    "RR": (True, False, True, False),
    "nDCG": (True, False, False, True),
    "AP": (True, False, True, False),
    "Rprec": (False, False, True, False),
    "Success": (True, True, True, False),
    "Judged": (True, True, False, False),
    "NumRet": (False, False, False, False),
    "NumRel": (False, False, True, False),
    "NumRelRet": (False, False, True, False),
}

#: Accepted spellings (lower-case) of each family.
ALIASES: dict[str, str] = {
    "p": "P",
    "precision": "P",
    "r": "R",
    "recall": "R",
    "rr": "RR",
    "mrr": "RR",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "ap": "AP",
    "map": "AP",
    "rprec": "Rprec",
    "success": "Success",
    "hit": "Success",
    "hits": "Success",
    "judged": "Judged",
    "numret": "NumRet",
    "num_ret": "NumRet",
    "numrel": "NumRel",
    "num_rel": "NumRel",
    "numrelret": "NumRelRet",
    "num_rel_ret": "NumRelRet",
}

#: Measures that never exceed 1 (counts excluded).
BOUNDED = frozenset(f for f in FAMILIES if not f.startswith("Num"))

_PATTERN = re.compile(
    r"^\s*(?P<family>[A-Za-z_]+)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<cutoff>[^\s]+))?\s*$"
)


@dataclass(frozen=True, order=True)
class Measure:
    """A retrieval measure with its parameters; hashable, printable, parseable.

    ``rel`` is the minimum grade counted as relevant by binary measures
    (trec_eval ``-l``); nDCG ignores it and uses grades as gains, linear
    (``grade``) or exponential (``2**grade - 1``).
    """

    family: str
    cutoff: int | None = None
    rel: int = 1
    gain: Gain = "linear"

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise UsageError(f"unknown measure family {self.family!r}")
        takes_cut, needs_cut, takes_rel, takes_gain = FAMILIES[self.family]
        if self.cutoff is not None and not takes_cut:
            raise UsageError(f"{self.family} takes no cutoff (remove '@{self.cutoff}')")
        if self.cutoff is None and needs_cut:
            raise UsageError(f"{self.family} needs a cutoff, e.g. {self.family}@10")
        if self.cutoff is not None and (isinstance(self.cutoff, bool) or self.cutoff < 1):
            raise UsageError(f"cutoff must be a whole number >= 1, got {self.cutoff!r}")
        if self.rel != 1 and not takes_rel:
            raise UsageError(f"{self.family} takes no rel= parameter")
        if isinstance(self.rel, bool) or self.rel < 1:
            raise UsageError(f"rel must be a whole number >= 1, got {self.rel!r}")
        if self.gain not in ("linear", "exp"):
            raise UsageError(f"gain must be 'linear' or 'exp', got {self.gain!r}")
        if self.gain != "linear" and not takes_gain:
            raise UsageError(f"{self.family} takes no gain= parameter")

    @property
    def name(self) -> str:
        """Canonical ir_measures-style name, e.g. ``P(rel=2)@5``."""
        params = []
        if self.rel != 1:
            params.append(f"rel={self.rel}")
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        text = self.family + (f"({','.join(params)})" if params else "")
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    @property
    def bounded(self) -> bool:
        """True when values lie in [0, 1]."""
        return self.family in BOUNDED

    def __str__(self) -> str:
        return self.name


def parse_measure(text: str | Measure) -> Measure:
    """Parse an ir_measures-style name (``nDCG@10``, ``P(rel=2)@5``, ``MRR@10``).

    Aliases such as ``MRR``, ``MAP``, ``Recall@10`` and ``ndcg_cut_10`` are
    accepted and canonicalised. Raises :class:`UsageError` with the accepted
    names on anything else.
    """
    if isinstance(text, Measure):
        return text
    raw = str(text)
    trec = re.fullmatch(r"\s*(ndcg_cut|map_cut|P|recall|success)[_.](\d+)\s*", raw)
    if trec:
        fam = {"ndcg_cut": "nDCG", "map_cut": "AP", "P": "P", "recall": "R", "success": "Success"}
        raw = f"{fam[trec.group(1)]}@{trec.group(2)}"
    m = _PATTERN.match(raw)
    if not m:
        raise UsageError(_unknown(raw))
    family = ALIASES.get(m.group("family").lower())
    if family is None:
        raise UsageError(_unknown(raw))
    cutoff = None
    if m.group("cutoff") is not None:
        if not re.fullmatch(r"\d{1,9}", m.group("cutoff")):
            raise UsageError(f"bad cutoff in {raw!r}: k must be a whole number from 1 to 10^9")
        cutoff = int(m.group("cutoff"))
    rel, gain = 1, "linear"
    for part in filter(None, (p.strip() for p in (m.group("params") or "").split(","))):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key == "rel" and re.fullmatch(r"\d+", value):
            rel = int(value)
        elif key == "gain" and value in ("linear", "exp"):
            gain = value
        else:
            raise UsageError(f"bad parameter {part!r} in {raw!r}: use rel=N or gain=linear|exp")
    return Measure(family, cutoff, rel, gain)  # type: ignore[arg-type]


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
    names = ", ".join(
        [
            "P@k",
            "R@k",
            "RR",
            "RR@k",
            "nDCG",
            "nDCG@k",
            "AP",
            "AP@k",
            "Rprec",
            "Success@k",
            "Judged@k",
            "NumRet",
            "NumRel",
            "NumRelRet",
        ]
    )
    return f"unknown measure {raw!r}; use one of {names} (e.g. nDCG@10, P(rel=2)@5)"
