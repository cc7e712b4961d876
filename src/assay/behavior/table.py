"""From UBI records to search instances: who saw which document where, and what they did.

A search instance is one drawing of a ``query_id``'s result list. The list
comes from its ``impression`` events (object id at ``position.ordinal``; a
document at a rank already shown starts a new drawing, as when an application
reuses the ``query_id`` while the user types on) or, when it has none, from the
first of its ``ubi_queries`` records that holds a non-empty
``query_response_hit_ids`` list (rank = order in the list). The query text is
that of the drawing's first impression event, else that of the ``query_id``. Actions on a shown
document count with a weight in (0, 1]: ``click`` weighs 1, other actions (add
to cart, purchase) only when given a weight; an instance's signal for a
document is the largest weight of the actions it logged on it. Instances are
grouped into queries by :func:`assay.querytext.query_id_for` of their text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.behavior.models import UbiEvent, UbiLog
from assay.errors import InputError, Problem, UsageError
from assay.querytext import query_id_for

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
            "hit_list_positions",
            "hit_list_position_mismatch",
        ),
        0,
    )
    text: dict[str, str] = {}
    for q in queries:
        text.setdefault(q.query_id, q.user_query)
    for e in events:
        if e.query_id is not None and e.user_query is not None:
            text.setdefault(e.query_id, e.user_query)
    lists = _impressions(events, impression_action, positions)
    counts["from_impressions"] = len(lists)
    have = {lst.qid for lst in lists}
    for q in queries:
        if q.hit_ids and q.query_id not in have:
            have.add(q.query_id)
            docs = {d: r for r, d in enumerate(q.hit_ids)}
            lists.append(
                _List(q.query_id, q.query_id, docs, q.user_query, q.path, q.line, from_hits=True)
            )
            counts["from_hit_ids"] += 1
    acted = {e.query_id for e in events if e.action_name in w and e.query_id is not None}
    counts["no_result_list"] = len(acted - have)
    return _assemble(lists, text, events, w, counts, positions, max_rank)


@dataclass
class _List:
    """One result list as shown: ``docs`` maps doc id to 0-based rank."""

    qid: str
    instance: str
    docs: dict[str, int]
    text: str | None
    path: str
    line: int
    at: dict[int, str] = field(default_factory=dict)
    from_hits: bool = False


def _position_problem(e: UbiEvent, message: str, hint: str) -> InputError:
    field_name = "event_attributes.position.ordinal"
    return InputError([Problem(e.path, e.line, message, field=field_name, hint=hint)])


def _impressions(events: list[UbiEvent], action: str, positions: int) -> list[_List]:
    """Result lists from impression events, in file order, checking the position base.

    A ``query_id`` whose page was drawn again (another document at a rank already
    shown) gets one list per drawing, ``query_id``, ``query_id#2``...
    """
    out: list[_List] = []
    current: dict[str, _List] = {}
    drawn: dict[str, int] = {}
    zero_seen = False
    first: UbiEvent | None = None
    for e in events:
        if e.action_name != action or e.query_id is None or e.object_id is None:
            continue
        if e.position is None:
            raise _position_problem(e, "impression without a position", "log every rank")
        first = first or e
        if e.position == 0:
            zero_seen = True
            if positions == 1:
                raise _position_problem(
                    e,
                    "position 0 in a log declared 1-based",
                    "declare --positions 0, or keep one application (--application)",
                )
        rank = e.position - positions
        lst = current.get(e.query_id)
        if lst is None or lst.at.get(rank, e.object_id) != e.object_id:
            drawn[e.query_id] = drawn.get(e.query_id, 0) + 1
            n = drawn[e.query_id]
            instance = e.query_id if n == 1 else f"{e.query_id}#{n}"
            lst = _List(e.query_id, instance, {}, e.user_query, e.path, e.line)
            current[e.query_id] = lst
            out.append(lst)
        if e.object_id not in lst.docs or rank < lst.docs[e.object_id]:
            lst.docs[e.object_id] = rank
        lst.at.setdefault(rank, e.object_id)
    if first is not None and positions == 0 and not zero_seen:
        logged = sum(len(lst.docs) for lst in out)
        raise InputError(
            [
                Problem(
                    first.path,
                    None,
                    f"declared 0-based, but no impression of {logged} is at position 0",
                    field="event_attributes.position.ordinal",
                    hint="the first result seems to be 1: declare --positions 1",
                )
            ]
        )
    return out


def _assemble(
    lists: list[_List],
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
    kept: list[_List] = []
    inst_query: list[int] = []
    rows: list[dict[int, int]] = []
    for lst in lists:
        raw = lst.text if lst.text is not None else text.get(lst.qid)
        key = query_id_for(raw) if raw is not None else ""
        if not key:
            counts["no_query_text"] += 1
            continue
        if key not in keys:
            keys[key] = len(keys)
            key_text.append(raw.strip())
        row: dict[int, int] = {}
        for doc, rank in lst.docs.items():
            if rank >= max_rank:
                counts["beyond_max_rank"] += 1
                continue
            row[rank] = pairs.setdefault((key, doc), len(pairs))
        kept.append(lst)
        inst_query.append(keys[key])
        rows.append(row)
    width = max((max(r) + 1 for r in rows if r), default=1)
    docs_m = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        if row:
            docs_m[i, list(row)] = list(row.values())
    signal = _signals(kept, docs_m, events, weights, counts, positions)
    counts["instances"] = len(kept)
    return ClickTable(
        query_keys=list(keys),
        query_texts=key_text,
        pairs=list(pairs),
        instance_ids=[lst.instance for lst in kept],
        instance_query=np.asarray(inst_query, dtype=np.int64),
        docs=docs_m,
        signal=signal,
        counts=counts,
        assumptions=_assumptions(weights, positions, max_rank, _checked(kept, counts)),
    )


def _signals(
    lists: list[_List],
    docs_m: np.ndarray,
    events: list[UbiEvent],
    weights: dict[str, float],
    counts: dict[str, int],
    positions: int,
) -> np.ndarray:
    """Action weights per cell: an action goes to the latest drawing before it showing its doc."""
    by_qid: dict[str, list[int]] = {}
    for i, lst in enumerate(lists):
        by_qid.setdefault(lst.qid, []).append(i)
    signal = np.zeros(docs_m.shape, dtype=np.float64)
    first_off: tuple[UbiEvent, int] | None = None
    for e in events:
        weight = weights.get(e.action_name)
        if weight is None or e.query_id not in by_qid:
            continue
        counts["actions"] += 1
        shown = [i for i in by_qid[e.query_id] if e.object_id in lists[i].docs]
        earlier = [i for i in shown if lists[i].path == e.path and lists[i].line <= e.line]
        pick = (earlier or shown or [None])[-1]
        rank = lists[pick].docs[e.object_id] if pick is not None else None
        if pick is None or rank >= docs_m.shape[1] or docs_m[pick, rank] < 0:
            counts["actions_on_unshown"] += 1
            continue
        if e.position is not None and e.position - positions != rank:
            counts["actions_position_mismatch"] += 1
        if e.position is not None and lists[pick].from_hits:
            counts["hit_list_positions"] += 1
            if e.position - positions != rank:
                counts["hit_list_position_mismatch"] += 1
                first_off = first_off or (e, rank)
        signal[pick, rank] = max(signal[pick, rank], weight)
    checked, off = counts["hit_list_positions"], counts["hit_list_position_mismatch"]
    if checked and off == checked and first_off is not None:
        e, rank = first_off
        raise _position_problem(
            e,
            f"position {e.position} of {e.object_id!r}, number {rank + 1} of its returned list "
            f"(as are all {checked} action positions): the log is not {positions}-based",
            f"declare --positions {1 - positions}",
        )
    return signal


def _checked(lists: list[_List], counts: dict[str, int]) -> str:
    """How the declared position base was checked."""
    shown = sum(len(lst.docs) for lst in lists if not lst.from_hits)
    acts = counts["hit_list_positions"]
    if not shown and not acts:
        return "not checked: the log holds no positions"
    return f"checked against {shown} impressions and {acts} action positions on returned lists"


def _assumptions(
    weights: dict[str, float], positions: int, max_rank: int, checked: str
) -> list[str]:
    acts = ", ".join(f"{k}={v:g}" for k, v in sorted(weights.items()))
    return [
        f"positions are {positions}-based ({checked})",
        "a search instance is one query_id; instances are grouped into queries by their "
        "normalised user_query (NFKC, case-folded, white space collapsed; ids write spaces as _)",
        "result lists come from impression events, else from query_response_hit_ids "
        "(a returned list that was not logged as seen counts as seen); a query_id whose "
        "page was drawn again (another document at a shown rank) is one instance per drawing",
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
