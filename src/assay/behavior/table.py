"""From UBI records to search instances: who saw which document where, and what they did.

A search instance is one ``query_id``. Its result list comes from its
``impression`` events (object id at ``position.ordinal``) or, when it has none,
from the first of its ``ubi_queries`` records that holds a non-empty
``query_response_hit_ids`` list (rank = order in the list). Actions on a shown
document count with a weight in (0, 1]: ``click`` weighs 1, other actions (add
to cart, purchase) only when given a weight; an instance's signal for a
document is the largest weight of the actions it logged on it. Instances are
grouped into queries by :func:`assay.querytext.normalize_query` of their text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.behavior.models import UbiEvent, UbiLog
from assay.errors import InputError, Problem, UsageError
from assay.querytext import normalize_query

DEFAULT_WEIGHTS: dict[str, float] = {"click": 1.0}


@dataclass(frozen=True)
class ClickTable:
    """Search instances as padded arrays (instances x ranks), rank 0 at the top.

    ``docs[i, r]`` is the pair index shown at rank ``r`` of instance ``i`` (-1:
    nothing logged there); ``signal[i, r]`` the action weight observed on it
    (0 when nothing). ``pairs[p]`` is ``(query key, doc id)``.
    """

    query_keys: list[str]
    query_texts: list[str]
    pairs: list[tuple[str, str]]
    instance_ids: list[str]
    instance_query: np.ndarray
    docs: np.ndarray
    signal: np.ndarray
    counts: dict[str, int] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)

    @property
    def shown(self) -> np.ndarray:
        """Boolean mask of logged (instance, rank) cells."""
        return self.docs >= 0

    def pair_impressions(self) -> np.ndarray:
        """Impressions per pair (instances that showed it)."""
        return np.bincount(self.docs[self.shown], minlength=len(self.pairs)).astype(np.int64)

    def pair_clicks(self) -> np.ndarray:
        """Weighted clicks per pair (sum of the per-instance signals)."""
        return np.bincount(
            self.docs[self.shown], weights=self.signal[self.shown], minlength=len(self.pairs)
        )


def build_click_table(
    log: UbiLog,
    *,
    positions: int,
    weights: Mapping[str, float] | None = None,
    application: str | None = None,
    impression_action: str = "impression",
    max_rank: int = 50,
) -> ClickTable:
    """Search instances of ``log`` with their result lists and weighted actions.

    ``positions`` declares whether ``position.ordinal`` counts from 0 or 1; it is
    checked against the data (a 0 in a 1-based log, or no 0 at all in a 0-based
    one, is an :class:`InputError`). ``weights`` maps action names to weights in
    (0, 1] (default: ``click`` 1). ``application`` keeps only that application's
    records. Ranks at or beyond ``max_rank`` are dropped (counted).
    """
    if positions not in (0, 1):
        raise UsageError(f"positions must be 0 or 1 (the first result's ordinal), got {positions}")
    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    for name, value in w.items():
        if not 0 < value <= 1:
            raise UsageError(f"weight of {name!r} must be in (0, 1], got {value}")
    queries = [q for q in log.queries if application is None or q.application == application]
    events = [e for e in log.events if application is None or e.application == application]
    counts: dict[str, int] = dict.fromkeys(
        (
            "instances",
            "no_query_text",
            "no_result_list",
            "actions",
            "actions_on_unshown",
            "actions_position_mismatch",
            "beyond_max_rank",
            "from_impressions",
            "from_hit_ids",
        ),
        0,
    )
    text: dict[str, str] = {}
    hits: dict[str, tuple[str, ...]] = {}
    for q in queries:
        text.setdefault(q.query_id, q.user_query)
        if q.hit_ids and q.query_id not in hits:
            hits[q.query_id] = q.hit_ids
    shown = _impressions(events, impression_action, positions)
    for e in events:
        if e.query_id is not None and e.user_query is not None:
            text.setdefault(e.query_id, e.user_query)
    lists: dict[str, dict[str, int]] = {}
    order = list(dict.fromkeys([*shown, *hits]))
    for qid in order:
        if qid in shown:
            lists[qid] = shown[qid]
            counts["from_impressions"] += 1
        else:
            lists[qid] = {d: r for r, d in enumerate(hits[qid])}
            counts["from_hit_ids"] += 1
    acted = {e.query_id for e in events if e.action_name in w and e.query_id is not None}
    counts["no_result_list"] = len({q for q in acted if q not in lists})
    return _assemble(lists, text, events, w, counts, positions, max_rank)


def _impressions(events: list[UbiEvent], action: str, positions: int) -> dict[str, dict[str, int]]:
    """``{query_id: {doc: rank}}`` from impression events, checking the position base."""
    out: dict[str, dict[str, int]] = {}
    zero_seen = False
    logged = 0
    for e in events:
        if e.action_name != action or e.query_id is None or e.object_id is None:
            continue
        if e.position is None:
            raise InputError(
                [
                    Problem(
                        e.path,
                        e.line,
                        "impression without a position",
                        field="event_attributes.position.ordinal",
                        hint="log the rank of every impression",
                    )
                ]
            )
        logged += 1
        if e.position == 0:
            zero_seen = True
            if positions == 1:
                raise InputError(
                    [
                        Problem(
                            e.path,
                            e.line,
                            "position 0 in a log declared 1-based",
                            field="event_attributes.position.ordinal",
                            hint="declare --positions 0, or keep one application (--application)",
                        )
                    ]
                )
        rank = e.position - positions
        docs = out.setdefault(e.query_id, {})
        if e.object_id not in docs or rank < docs[e.object_id]:
            docs[e.object_id] = rank
    if positions == 0 and logged and not zero_seen:
        raise InputError(
            [
                Problem(
                    events[0].path,
                    None,
                    f"declared 0-based, but no impression of {logged} is at position 0",
                    field="event_attributes.position.ordinal",
                    hint="the first result seems to be 1: declare --positions 1",
                )
            ]
        )
    return out


def _assemble(
    lists: dict[str, dict[str, int]],
    text: dict[str, str],
    events: list[UbiEvent],
    weights: dict[str, float],
    counts: dict[str, int],
    positions: int,
    max_rank: int,
) -> ClickTable:
    keys: dict[str, int] = {}
    key_text: list[str] = []
    pairs: dict[tuple[str, str], int] = {}
    ids: list[str] = []
    inst_query: list[int] = []
    rows: list[dict[int, int]] = []
    for qid, docs in lists.items():
        raw = text.get(qid)
        key = normalize_query(raw) if raw is not None else ""
        if not key:
            counts["no_query_text"] += 1
            continue
        if key not in keys:
            keys[key] = len(keys)
            key_text.append(raw.strip())
        row: dict[int, int] = {}
        for doc, rank in docs.items():
            if rank >= max_rank:
                counts["beyond_max_rank"] += 1
                continue
            row[rank] = pairs.setdefault((key, doc), len(pairs))
        ids.append(qid)
        inst_query.append(keys[key])
        rows.append(row)
    width = max((max(r) + 1 for r in rows if r), default=1)
    docs_m = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        if row:
            docs_m[i, list(row)] = list(row.values())
    signal = _signals(ids, lists, docs_m, events, weights, counts, positions)
    counts["instances"] = len(ids)
    return ClickTable(
        query_keys=list(keys),
        query_texts=key_text,
        pairs=list(pairs),
        instance_ids=ids,
        instance_query=np.asarray(inst_query, dtype=np.int64),
        docs=docs_m,
        signal=signal,
        counts=counts,
        assumptions=_assumptions(weights, positions, max_rank),
    )


def _signals(
    ids: list[str],
    lists: dict[str, dict[str, int]],
    docs_m: np.ndarray,
    events: list[UbiEvent],
    weights: dict[str, float],
    counts: dict[str, int],
    positions: int,
) -> np.ndarray:
    row_of = {qid: i for i, qid in enumerate(ids)}
    signal = np.zeros(docs_m.shape, dtype=np.float64)
    for e in events:
        weight = weights.get(e.action_name)
        if weight is None or e.query_id not in row_of:
            continue
        counts["actions"] += 1
        rank = lists[e.query_id].get(e.object_id) if e.object_id is not None else None
        if rank is None or rank >= docs_m.shape[1] or docs_m[row_of[e.query_id], rank] < 0:
            counts["actions_on_unshown"] += 1
            continue
        if e.position is not None and e.position - positions != rank:
            counts["actions_position_mismatch"] += 1
        i = row_of[e.query_id]
        signal[i, rank] = max(signal[i, rank], weight)
    return signal


def _assumptions(weights: dict[str, float], positions: int, max_rank: int) -> list[str]:
    acts = ", ".join(f"{k}={v:g}" for k, v in sorted(weights.items()))
    return [
        f"positions are {positions}-based (checked: the log agrees)",
        "a search instance is one query_id; instances are grouped into queries by their "
        "normalised user_query (NFKC, case-folded, white space collapsed)",
        "result lists come from impression events, else from query_response_hit_ids "
        "(a shown list that was not logged as seen counts as seen)",
        f"action weights {acts}; an instance's signal for a document is its largest weight; "
        "actions on documents not in the instance's list are ignored (counted)",
        "every impression counts at the rank it was shown (not the best rank ever seen)",
        f"ranks from {max_rank + positions} on are dropped",
    ]


def describe(table: ClickTable) -> dict[str, Any]:
    """Counts of what the table holds (for reports)."""
    return {
        "queries": len(table.query_keys),
        "pairs": len(table.pairs),
        **table.counts,
    }
