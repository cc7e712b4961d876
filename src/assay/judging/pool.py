"""Depth pools: the unjudged (query, document) pairs that the runs rank near the top.

TREC-style depth pooling: a pair is in the pool when some run ranks the
document in its top ``depth`` for a query of the judgment set and the set has
no grade for it yet. Ranks follow :meth:`assay.runs.Run.ranked` (score
descending, then doc id descending, as trec_eval orders them).

Orderings (``strategy``):

* ``depth`` -- the judgment set's query order, then the best rank any run
  gave the document, then doc id: a plain depth pool.
* ``rank`` -- rank-weighted across runs: the sum over runs of nDCG's discount
  ``1 / log2(1 + rank)`` (0 for a run that does not rank it in its top
  ``depth``), highest first. Documents many runs rank high come first.
* ``delta`` -- the documents most likely to change a comparison: how much a
  relevant grade could move the per-query DCG@depth *difference* between two
  runs, i.e. the largest ``|discount_a - discount_b|`` over pairs of runs.
  A document both runs rank at the same place moves nothing and comes last.
  Needs at least two runs; ties fall back to ``rank``.

``budget`` keeps the first ``budget`` pairs of the ordering.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least
from assay.core.errors import UsageError, collecting
from assay.io.fileio import write_text_atomic
from assay.io.textio import json_lines, read_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from assay.judgments.models import JudgmentSet
    from assay.runs.models import Run

STRATEGIES = ("depth", "rank", "delta")


@dataclass(frozen=True)
class PoolPair:
    """One unjudged pair of a pool: the query, the document and who brought it.

    ``runs`` maps each run name to the rank (1-based) it gave the document;
    ``notes`` holds the query's metadata (language, query class, note ...);
    ``document`` optional fields of the document to show the assessor.
    """

    query_id: str
    query: str
    doc_id: str
    runs: dict[str, int]
    notes: dict[str, str] = field(default_factory=dict)
    document: dict[str, str] | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PoolPair:
        """The pair of a checked pool line (as :meth:`to_json` writes it)."""
        return cls(
            str(obj["query_id"]),
            str(obj["query"]),
            str(obj["doc_id"]),
            {str(r["run"]): int(r["rank"]) for r in obj.get("runs") or []},
            {str(k): str(v) for k, v in (obj.get("notes") or {}).items()},
            obj.get("document"),
        )

    def to_json(self) -> dict[str, Any]:
        """The pool line of this pair (the shape :func:`read_pool` reads)."""
        out: dict[str, Any] = {
            "query_id": self.query_id,
            "query": self.query,
            "doc_id": self.doc_id,
            "runs": [{"run": name, "rank": rank} for name, rank in self.runs.items()],
        }
        if self.notes:
            out["notes"] = dict(self.notes)
        if self.document is not None:
            out["document"] = dict(self.document)
        return out


def build_pool(
    judgments: JudgmentSet,
    runs: Sequence[Run],
    depth: int = 10,
    *,
    strategy: str = "depth",
    budget: int | None = None,
) -> list[PoolPair]:
    """The unjudged pairs in the top ``depth`` of any run, ordered by ``strategy``.

    Only queries of ``judgments`` are pooled (their text is shown to the
    assessor); a pair with any grade in ``judgments`` is left out. Run names
    must be unique. Raises :class:`UsageError` for a bad depth, budget,
    strategy, duplicate run names, or ``delta`` with fewer than two runs.
    """
    at_least("depth", depth)
    if budget is not None:
        at_least("budget", budget)
    if strategy not in STRATEGIES:
        raise UsageError(f"--strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    if not runs:
        raise UsageError("give at least one run to pool")
    names = [r.name for r in runs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"run names must differ to tell who brought a pair; repeated: {dupes}")
    if strategy == "delta" and len(runs) < 2:
        raise UsageError("--strategy delta compares runs: give at least two runs")
    candidates = _candidates(judgments, runs, depth)
    texts = judgments.queries["text"].astype(str)
    blank = sorted({q for q in candidates.index.get_level_values(0) if not texts[q].strip()})
    if blank:
        raise UsageError(
            f"{judgments.path or judgments.name}: {len(blank)} pooled queries have no text "
            f"(e.g. {blank[0]!r}) and an assessor needs it; TREC qrels carry no texts: "
            "pass --queries FILE"
        )
    ordered = _order(candidates, judgments, names, strategy)
    if budget is not None:
        ordered = ordered[:budget]
    return [_pair(row, judgments) for row in ordered]


def _candidates(judgments: JudgmentSet, runs: Sequence[Run], depth: int) -> pd.DataFrame:
    """One row per (query, doc) in some run's top ``depth``, one rank column per run."""
    import pandas as pd

    wanted = set(judgments.query_ids)
    tops = []
    for run in runs:
        r = run.ranked("score")
        qids = r["query_id"].astype(str)
        rank = qids.groupby(qids.to_numpy(), sort=False).cumcount() + 1
        keep = (rank <= depth).to_numpy() & qids.isin(wanted).to_numpy()
        top = pd.DataFrame(
            {
                "query_id": qids[keep].to_numpy(),
                "doc_id": r["doc_id"].astype(str)[keep].to_numpy(),
                run.name: rank[keep].to_numpy(),
            }
        )
        tops.append(top.set_index(["query_id", "doc_id"]))
    merged = pd.concat(tops, axis=1, join="outer")
    judged = pd.MultiIndex.from_arrays(
        [judgments.qrels["query_id"].astype(str), judgments.qrels["doc_id"].astype(str)]
    )
    return merged[~merged.index.isin(judged)]


def _order(
    frame: pd.DataFrame, judgments: JudgmentSet, names: list[str], strategy: str
) -> list[tuple[str, str, dict[str, int]]]:
    """The candidate rows as ``(query_id, doc_id, {run: rank})`` in pool order."""
    import numpy as np

    ranks = frame[names].to_numpy(dtype=np.float64)  # NaN: not in that run's top depth
    discount = np.where(np.isnan(ranks), 0.0, 1.0 / np.log2(1.0 + np.nan_to_num(ranks, nan=1.0)))
    weight = discount.sum(axis=1)
    position = {q: i for i, q in enumerate(judgments.query_ids)}
    qids = frame.index.get_level_values(0).tolist()
    docs = frame.index.get_level_values(1).tolist()
    qpos = np.array([position[q] for q in qids], dtype=np.int64)
    doc_order = np.argsort(np.argsort(np.array(docs, dtype=object), kind="stable"), kind="stable")
    if strategy == "depth":
        best = np.nanmin(ranks, axis=1)
        order = np.lexsort((doc_order, best, qpos))
    elif strategy == "rank":
        order = np.lexsort((doc_order, qpos, -weight))
    else:
        delta = discount.max(axis=1) - discount.min(axis=1)
        order = np.lexsort((doc_order, qpos, -weight, -np.round(delta, 12)))
    out = []
    for i in order.tolist():
        brought = {n: int(r) for n, r in zip(names, ranks[i], strict=True) if not np.isnan(r)}
        out.append((qids[i], docs[i], brought))
    return out


def _pair(row: tuple[str, str, dict[str, int]], judgments: JudgmentSet) -> PoolPair:
    qid, doc, brought = row
    q = judgments.query(qid)
    return PoolPair(qid, q.text, doc, brought, dict(q.metadata))


def write_pool(pairs: Sequence[PoolPair], path: str | Path) -> None:
    """Write a pool as JSON lines, atomically."""

    text = "".join(json.dumps(p.to_json(), ensure_ascii=False) + "\n" for p in pairs)
    write_text_atomic(path, text)


def read_pool(path: str | Path) -> list[PoolPair]:
    """Read and check a pool file (the lines :func:`write_pool` writes).

    Each line needs ``query_id``, ``query`` and ``doc_id`` strings; ``runs``,
    ``notes`` and ``document`` are optional. A pair listed twice is an error
    naming both lines. Raises :class:`InputError` listing every problem.
    """

    pairs: list[PoolPair] = []
    with collecting(path) as log:
        text = read_text(path, log)
        if text is None:
            return []
        seen: dict[tuple[str, str], int] = {}
        for number, obj in json_lines(text, log, what="pair"):
            pair = _parse_line(obj, number, log)
            if pair is None:
                continue
            key = (pair.query_id, pair.doc_id)
            if key in seen:
                log.add(
                    number,
                    f"duplicate pair ({pair.query_id!r}, {pair.doc_id!r}) "
                    f"(first seen on line {seen[key]})",
                    field="doc_id",
                    hint="list every pair once",
                )
                continue
            seen[key] = number
            pairs.append(pair)
    return pairs


def _parse_line(obj: dict[str, Any], number: int, log: Any) -> PoolPair | None:
    values = {}
    for key in ("query_id", "query", "doc_id"):
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and key != "query":
            value = str(value)
        if not isinstance(value, str) or (key != "query" and not value.strip()):
            log.add(number, f"{key} must be a non-empty string", field=key, hint=_LINE_HINT)
            return None
        values[key] = value
    runs = {}
    for item in obj.get("runs") or []:
        if isinstance(item, dict) and isinstance(item.get("run"), str):
            runs[item["run"]] = int(item.get("rank") or 0)
    notes = obj.get("notes") or {}
    document = obj.get("document")
    for key, value in (("notes", notes), ("document", document)):
        if value is not None and not isinstance(value, dict):
            log.add(number, f"{key} must be an object", field=key, hint=_LINE_HINT)
            return None
    return PoolPair(
        values["query_id"],
        values["query"],
        values["doc_id"],
        runs,
        {str(k): str(v) for k, v in notes.items() if v is not None},
        None if document is None else {str(k): str(v) for k, v in document.items()},
    )


_LINE_HINT = 'write {"query_id": "q1", "query": "...", "doc_id": "d7"} (assay judge pool does)'
