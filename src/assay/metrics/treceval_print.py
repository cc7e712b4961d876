"""trec_eval's printed lines: per query (``-q``), summary, ``-Z`` z-scores.

:func:`render` reads per-query values (a :class:`Scored`) and prints them as
trec_eval does: ``%-22s\\t%s\\t%6.4f`` (counts as integers; with ``-Z`` every
value as ``Z%-22s\\t%s\\t%6.4f``), measures in trec_eval's table order,
queries sorted. It decides nothing about the values themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.metrics.registry import MIN_GEO_MEAN

if TYPE_CHECKING:  # pragma: no cover
    from assay.metrics.treceval import Output
    from assay.metrics.zscores import ZScores


@dataclass(frozen=True)
class Scored:
    """Per-query values ready to print: query ids in trec_eval's order (sorted).

    ``values`` maps each output name to an array aligned with ``query_ids``;
    ``texts`` each relstring output name to its strings; ``num_rel_all`` is
    trec_eval -c's ``num_rel`` summary (grades > 0 over every judged query).
    """

    query_ids: list[str]
    values: dict[str, Any]
    texts: dict[str, list[str]]
    num_rel_all: float = 0.0


def render(
    outputs: list[Output],
    scored: Scored,
    run_name: str,
    *,
    per_query: bool = False,
    summary: bool = True,
    complete: bool = False,
    zscores: ZScores | None = None,
) -> list[str]:
    """trec_eval's printed lines for ``scored`` values (``-q``, ``-n``, ``-c``, ``-Z``)."""
    qids, values = scored.query_ids, scored.values
    if zscores is not None:
        values = {o.name: _zscored(o, values[o.name], qids, zscores) for o in outputs}
    z = zscores is not None
    lines: list[str] = []
    if per_query:
        for pos, qid in enumerate(qids):
            for o in outputs:
                if o.kind == "relstring":
                    lines.append(f"{o.name:<22}\t{qid}\t'{scored.texts[o.name][pos]}'")
                elif o.kind in ("long", "double") and not _is_num_q(o):
                    lines.append(_line(o, qid, float(values[o.name][pos]), z))
    if summary:
        for o in outputs:
            if o.kind == "runid":
                lines.append(f"{'runid':<22}\tall\t{run_name}")
            elif o.kind in ("long", "double", "summary"):
                total = _summary(o, values[o.name], z)
                if complete and o.measure is not None and o.measure.family == "NumRel":
                    # trec_eval -c sums grades > 0 over the qrels, whatever -l says
                    total = scored.num_rel_all
                lines.append(_line(o, "all", total, z))
    return lines


def _zscored(o: Output, values: Any, qids: list[str], zscores: ZScores) -> Any:
    """One output's per-query values as z-scores; geometric means on the logs trec_eval sums.

    ``num_q`` stays a count (its summary is the number of queries, whatever -Z says).
    """

    if o.kind not in ("long", "double", "summary") or _is_num_q(o):
        return values
    if o.measure is not None and o.measure.aggregate == "gmean":
        values = c_log(np.maximum(values, MIN_GEO_MEAN))
    return zscores.convert(qids, o.name, values)


def _is_num_q(o: Output) -> bool:
    return o.measure is not None and o.measure.family == "NumQ"


def _summary(o: Output, values: Any, z: bool) -> float:
    """The summary value, computed as trec_eval computes it.

    trec_eval adds each query's value to a double, in its query order, then
    divides by the number of queries: a sequential sum (not numpy's pairwise
    one, which can move the 4th printed decimal at an exact .5). Counts stay
    sums; geometric means (``gm_map``, ``gm_bpref``) sum ``log(max(v, 1e-5))``
    and print ``exp`` of their mean (with ``-Z`` the values are already
    z-scores of those logs). Preference measures (no registry family) add up
    counts and average the rest.
    """

    m = o.measure
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return 0.0
    counts = m.aggregate == "sum" if m is not None else o.kind == "long"
    gmean = m is not None and m.aggregate == "gmean"
    if gmean and not z:
        v = c_log(np.maximum(v, MIN_GEO_MEAN))
    total = sequential_sum(v)
    if counts:
        return total
    mean = total / len(v)
    return math.exp(mean) if gmean else mean


def sequential_sum(values: Any) -> float:
    """``values`` added one after the other in double precision, as C's ``s += v`` loop.

    ``np.cumsum`` accumulates strictly in order (``np.sum`` sums pairwise).
    """
    v = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def c_log(values: Any) -> Any:
    """Natural logs by the C library's ``log`` (as trec_eval), element by element.

    numpy's vectorised ``log`` may differ from libm's in the last bit.
    """
    return np.fromiter(map(math.log, np.asarray(values, dtype=np.float64).tolist()), np.float64)


def _line(o: Output, qid: str, value: float, z: bool = False) -> str:
    if z:
        text = f"{'-nan':>6}" if math.isnan(value) else f"{value:6.4f}"
        return f"Z{o.name:<22}\t{qid}\t{text}"
    if o.kind == "long":
        return f"{o.name:<22}\t{qid}\t{int(value)}"
    if math.isnan(value):
        return f"{o.name:<22}\t{qid}\t{'-nan':>6}"
    return f"{o.name:<22}\t{qid}\t{value:6.4f}"
