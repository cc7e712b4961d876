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
grouped into queries by :func:`assay.core.querytext.query_id_for` of their text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.behavior.models import UbiEvent, UbiLog, UbiQuery
from assay.core.errors import InputError, Problem, UsageError
from assay.core.querytext import query_id_for

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
    #: per instance, where its list comes in the whole log (see :func:`shard_table`)
    instance_order: np.ndarray | None = None
    #: per pair, ``(instance order, place in that list)`` of its first appearance
    pair_first: np.ndarray | None = None

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
    table, checks = _build(
        log.queries,
        log.events,
        None,
        None,
        positions=positions,
        weights=checked_weights(weights, positions),
        application=application,
        impression_action=impression_action,
        max_rank=max_rank,
    )
    check_base(checks["base"], positions)
    check_hit_positions(table.counts, checks["first_off"], positions)
    return table


def checked_weights(weights: Mapping[str, float] | None, positions: int) -> dict[str, float]:
    """The action weights to use (default: ``click`` 1), after checking them and ``positions``."""
    if positions not in (0, 1):
        raise UsageError(f"positions must be 0 or 1 (the first result's ordinal), got {positions}")
    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    for name, value in w.items():
        if not 0 < value <= 1:
            raise UsageError(f"weight of {name!r} must be in (0, 1], got {value}")
    return w


def shard_table(
    queries: Sequence[UbiQuery],
    events: Sequence[UbiEvent],
    query_order: Sequence[int],
    event_order: Sequence[int],
    *,
    n_events: int,
    positions: int,
    weights: dict[str, float],
    application: str | None,
    impression_action: str = "impression",
    max_rank: int = 50,
) -> tuple[ClickTable, dict[str, Any]]:
    """The click table of one shard of a log: every record of some ``query_id`` values.

    ``query_order`` / ``event_order`` give each record's place in the whole log (of
    ``n_events`` events), so that the table says where each of its lists comes
    (``instance_order``: an impression list at its first event's place, a returned
    list after every event) and where each pair first appears (``pair_first``). The
    checks that need the whole log are not made here: their ingredients come back in
    the second value (see :func:`check_base`, :func:`check_hit_positions`). A problem
    with one record raises an :class:`InputError` whose ``order`` attribute is the
    record's place.
    """
    return _build(
        queries,
        events,
        query_order,
        event_order,
        n_events=n_events,
        positions=positions,
        weights=weights,
        application=application,
        impression_action=impression_action,
        max_rank=max_rank,
    )


def _build(
    all_queries: Sequence[UbiQuery],
    all_events: Sequence[UbiEvent],
    query_order: Sequence[int] | None,
    event_order: Sequence[int] | None,
    *,
    n_events: int | None = None,
    positions: int,
    weights: dict[str, float],
    application: str | None,
    impression_action: str,
    max_rank: int,
) -> tuple[ClickTable, dict[str, Any]]:
    """The click table of these records and what the whole-log checks need (orders
    default to the records' own places)."""
    w = weights
    n_events = len(all_events) if n_events is None else n_events
    q_at = range(len(all_queries)) if query_order is None else query_order
    e_at = range(len(all_events)) if event_order is None else event_order
    keep_q = [i for i, q in enumerate(all_queries) if application in (None, q.application)]
    keep_e = [i for i, e in enumerate(all_events) if application in (None, e.application)]
    queries = [all_queries[i] for i in keep_q]
    events = [all_events[i] for i in keep_e]
    e_order = [int(e_at[i]) for i in keep_e]
    counts: dict[str, int] = dict.fromkeys(COUNTS, 0)
    text: dict[str, str] = {}
    for q in queries:
        text.setdefault(q.query_id, q.user_query)
    for e in events:
        if e.query_id is not None and e.user_query is not None:
            text.setdefault(e.query_id, e.user_query)
    lists, base = _impressions(events, impression_action, positions, e_order)
    counts["from_impressions"] = len(lists)
    have = {lst.qid for lst in lists}
    for i, q in zip(keep_q, queries, strict=True):
        if q.hit_ids and q.query_id not in have:
            have.add(q.query_id)
            docs = {d: r for r, d in enumerate(q.hit_ids)}
            lst = _List(q.query_id, q.query_id, docs, q.user_query, q.path, q.line, from_hits=True)
            lst.order = n_events + int(q_at[i])
            lists.append(lst)
            counts["from_hit_ids"] += 1
    acted = {e.query_id for e in events if e.action_name in w and e.query_id is not None}
    counts["no_result_list"] = len(acted - have)
    return _assemble(lists, text, events, e_order, w, counts, positions, max_rank, base)


#: The counts every click table keeps (see :func:`describe`).
COUNTS = (
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
)


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
    order: int = 0


def _position_problem(e: UbiEvent, message: str, hint: str, order: int | None = None) -> InputError:
    field_name = "event_attributes.position.ordinal"
    error = InputError([Problem(e.path, e.line, message, field=field_name, hint=hint)])
    error.order = order  # type: ignore[attr-defined]  # the record's place in the whole log
    return error


def _impressions(
    events: list[UbiEvent], action: str, positions: int, order: list[int]
) -> tuple[list[_List], dict[str, Any]]:
    """Result lists from impression events, in file order, checking each position.

    A ``query_id`` whose page was drawn again (another document at a rank already
    shown) gets one list per drawing, ``query_id``, ``query_id#2``... The second value
    holds what :func:`check_base` needs.
    """
    out: list[_List] = []
    current: dict[str, _List] = {}
    drawn: dict[str, int] = {}
    zero_seen = False
    first: tuple[int, str] | None = None
    for e, at in zip(events, order, strict=True):
        if e.action_name != action or e.query_id is None or e.object_id is None:
            continue
        if e.position is None:
            raise _position_problem(e, "impression without a position", "log every rank", at)
        first = first or (at, e.path)
        if e.position == 0:
            zero_seen = True
            if positions == 1:
                raise _position_problem(
                    e,
                    "position 0 in a log declared 1-based",
                    "declare --positions 0, or keep one application (--application)",
                    at,
                )
        rank = e.position - positions
        lst = current.get(e.query_id)
        if lst is None or lst.at.get(rank, e.object_id) != e.object_id:
            drawn[e.query_id] = drawn.get(e.query_id, 0) + 1
            n = drawn[e.query_id]
            instance = e.query_id if n == 1 else f"{e.query_id}#{n}"
            lst = _List(e.query_id, instance, {}, e.user_query, e.path, e.line, order=at)
            current[e.query_id] = lst
            out.append(lst)
        if e.object_id not in lst.docs or rank < lst.docs[e.object_id]:
            lst.docs[e.object_id] = rank
        lst.at.setdefault(rank, e.object_id)
    logged = sum(len(lst.docs) for lst in out)
    return out, {"zero_seen": zero_seen, "first": first, "logged": logged}


def check_base(base: dict[str, Any], positions: int) -> None:
    """A 0-based log must show something at position 0 (``base``: from the impressions of
    the whole log, or of all its shards reduced)."""
    if base["first"] is not None and positions == 0 and not base["zero_seen"]:
        raise InputError(
            [
                Problem(
                    base["first"][1],
                    None,
                    f"declared 0-based, but no impression of {base['logged']} is at position 0",
                    field="event_attributes.position.ordinal",
                    hint="the first result seems to be 1: declare --positions 1",
                )
            ]
        )


def _assemble(
    lists: list[_List],
    text: dict[str, str],
    events: list[UbiEvent],
    order: list[int],
    weights: dict[str, float],
    counts: dict[str, int],
    positions: int,
    max_rank: int,
    base: dict[str, Any],
) -> tuple[ClickTable, dict[str, Any]]:
    keys: dict[str, int] = {}
    key_text: list[str] = []
    pairs: dict[tuple[str, str], int] = {}
    first: list[tuple[int, int]] = []
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
        for place, (doc, rank) in enumerate(lst.docs.items()):
            if rank >= max_rank:
                counts["beyond_max_rank"] += 1
                continue
            if (key, doc) not in pairs:
                pairs[(key, doc)] = len(pairs)
                first.append((lst.order, place))
            row[rank] = pairs[(key, doc)]
        kept.append(lst)
        inst_query.append(keys[key])
        rows.append(row)
    width = max((max(r) + 1 for r in rows if r), default=1)
    docs_m = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        if row:
            docs_m[i, list(row)] = list(row.values())
    signal, first_off = _signals(kept, docs_m, events, order, weights, counts, positions)
    counts["instances"] = len(kept)
    shown = sum(len(lst.docs) for lst in kept if not lst.from_hits)
    table = ClickTable(
        query_keys=list(keys),
        query_texts=key_text,
        pairs=list(pairs),
        instance_ids=[lst.instance for lst in kept],
        instance_query=np.asarray(inst_query, dtype=np.int64),
        docs=docs_m,
        signal=signal,
        counts=counts,
        assumptions=assumptions(weights, positions, max_rank, shown, counts),
        instance_order=np.asarray([lst.order for lst in kept], dtype=np.int64),
        pair_first=np.asarray(first, dtype=np.int64).reshape(-1, 2),
    )
    return table, {"base": base, "first_off": first_off, "shown": shown}


def _signals(
    lists: list[_List],
    docs_m: np.ndarray,
    events: list[UbiEvent],
    order: list[int],
    weights: dict[str, float],
    counts: dict[str, int],
    positions: int,
) -> tuple[np.ndarray, tuple[int, UbiEvent, int] | None]:
    """Action weights per cell: an action goes to the latest drawing before it showing its doc.

    The second value is the first action whose position is off its returned list's (its
    place in the log, the event, the rank), for :func:`check_hit_positions`."""
    by_qid: dict[str, list[int]] = {}
    for i, lst in enumerate(lists):
        by_qid.setdefault(lst.qid, []).append(i)
    signal = np.zeros(docs_m.shape, dtype=np.float64)
    first_off: tuple[int, UbiEvent, int] | None = None
    for e, at in zip(events, order, strict=True):
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
                first_off = first_off or (at, e, rank)
        signal[pick, rank] = max(signal[pick, rank], weight)
    return signal, first_off


def check_hit_positions(
    counts: dict[str, int], first_off: tuple[int, UbiEvent, int] | None, positions: int
) -> None:
    """Refuse a position base that every action on a returned list contradicts."""
    checked, off = counts.get("hit_list_positions", 0), counts.get("hit_list_position_mismatch", 0)
    if checked and off == checked and first_off is not None:
        _, e, rank = first_off
        raise _position_problem(
            e,
            f"position {e.position} of {e.object_id!r}, number {rank + 1} of its returned list "
            f"(as are all {checked} action positions): the log is not {positions}-based",
            f"declare --positions {1 - positions}",
        )


def assumptions(
    weights: dict[str, float], positions: int, max_rank: int, shown: int, counts: dict[str, int]
) -> list[str]:
    """What a click table assumes (``shown``: impressions logged on kept lists)."""
    acts = counts.get("hit_list_positions", 0)
    if not shown and not acts:
        checked = "not checked: the log holds no positions"
    else:
        checked = (
            f"checked against {shown} impressions and {acts} action positions on returned lists"
        )
    return _assumptions(weights, positions, max_rank, checked)


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
