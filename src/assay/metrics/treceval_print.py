"""trec_eval's printed lines: per query (``-q``), summary, ``-Z`` z-scores.

:func:`render` reads per-query values (a :class:`Scored`) and prints them as
trec_eval does: ``%-22s\\t%s\\t%6.4f`` (counts as integers; with ``-Z`` every
value as ``Z%-22s\\t%s\\t%6.4f``), measures in trec_eval's table order,
queries sorted. It decides nothing about the values themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

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
    from assay.metrics.registry import MIN_GEO_MEAN

    if o.kind not in ("long", "double", "summary") or _is_num_q(o):
        return values
    if o.measure is not None and o.measure.aggregate == "gmean":
        values = np.log(np.maximum(values, MIN_GEO_MEAN))
    return zscores.convert(qids, o.name, values)


def _is_num_q(o: Output) -> bool:
    return o.measure is not None and o.measure.family == "NumQ"


def _summary(o: Output, values: Any, z: bool) -> float:
    """The summary value; with -Z a geometric mean is exp of the mean z-score of the logs.

    Preference measures (no registry family) add up counts and average the rest.
    """
    from assay.metrics.engine import aggregate

    m = o.measure
    if m is None:
        v = np.asarray(values, dtype=np.float64)
        return 0.0 if not v.size else float(v.sum() if o.kind == "long" else v.mean())
    if z and m.aggregate == "gmean":
        return float(np.exp(np.mean(values))) if len(values) else 0.0
    return aggregate(m, values)


def _line(o: Output, qid: str, value: float, z: bool = False) -> str:
    import math

    if z:
        text = f"{'-nan':>6}" if math.isnan(value) else f"{value:6.4f}"
        return f"Z{o.name:<22}\t{qid}\t{text}"
    if o.kind == "long":
        return f"{o.name:<22}\t{qid}\t{int(value)}"
    if math.isnan(value):
        return f"{o.name:<22}\t{qid}\t{'-nan':>6}"
    return f"{o.name:<22}\t{qid}\t{value:6.4f}"
