"""Typed records of a User Behavior Insights (UBI) log.

A UBI log has two indexes. ``ubi_queries`` holds one record per search
instance (``query_id``) with the text the user typed and, optionally, the
ordered ids the engine returned (``query_response_hit_ids``; the older schema
calls it ``query_response_object_ids``). ``ubi_events`` holds what followed:
impressions, clicks, add-to-cart, purchases, each naming the ``query_id`` it
belongs to, the object acted on and its position in the result list.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class UbiQuery:
    """One ``ubi_queries`` record (a search instance and, maybe, its result list)."""

    query_id: str
    user_query: str
    path: str
    line: int
    application: str | None = None
    client_id: str | None = None
    query_response_id: str | None = None
    timestamp: str | None = None
    #: ordered ids returned, ``None`` when the record holds no list, ``()`` when empty
    hit_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class UbiEvent:
    """One ``ubi_events`` record: an action on an object at a position."""

    action_name: str
    path: str
    line: int
    query_id: str | None = None
    application: str | None = None
    client_id: str | None = None
    session_id: str | None = None
    timestamp: str | None = None
    user_query: str | None = None
    object_id: str | None = None
    object_id_field: str | None = None
    #: ``event_attributes.position.ordinal`` as logged (0- or 1-based, see the reader)
    position: int | None = None


@dataclass(frozen=True)
class UbiLog:
    """Everything read from one or more UBI files, in file order."""

    queries: tuple[UbiQuery, ...] = ()
    events: tuple[UbiEvent, ...] = ()
    files: tuple[str, ...] = ()
    #: per file, the layout it was read as (``bulk``, ``jsonl``, ``tsv``)
    layouts: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.queries) + len(self.events)
