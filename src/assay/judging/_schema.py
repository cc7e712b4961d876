"""The judging store's tables (SQLAlchemy Core); see :mod:`assay.judging.store`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy import Table


def tables() -> dict[str, Table]:
    """Fresh table objects of one judging store (``md`` is their MetaData)."""
    from sqlalchemy import (
        Column,
        ForeignKey,
        Integer,
        MetaData,
        String,
        Table,
        Text,
        UniqueConstraint,
    )

    md = MetaData()
    pairs = Table(
        "judging_pairs",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("position", Integer, nullable=False),
        Column("query_id", String(200), nullable=False),
        Column("doc_id", String(200), nullable=False),
        Column("payload", Text, nullable=False),
        UniqueConstraint("query_id", "doc_id", name="uq_judging_pair"),
    )
    people = Table(
        "judging_people",
        md,
        Column("name", String(100), primary_key=True),
        Column("role", String(20), nullable=False),
    )
    assignments = Table(
        "judging_assignments",
        md,
        Column("pair_id", Integer, ForeignKey("judging_pairs.id"), primary_key=True),
        Column("assessor", String(100), ForeignKey("judging_people.name"), primary_key=True),
    )
    events = Table(
        "judging_events",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("pair_id", Integer, ForeignKey("judging_pairs.id"), nullable=False, index=True),
        Column("assessor", String(100), nullable=False, index=True),
        Column("kind", String(20), nullable=False),
        Column("value", String(20)),
        Column("previous", String(20)),
        Column("undoes", Integer),
        Column("reason", Text),
        Column("created_at", String(40), nullable=False),
    )
    review = Table(
        "judging_review",
        md,
        Column("pair_id", Integer, ForeignKey("judging_pairs.id"), primary_key=True),
        Column("model_grade", Integer),
        Column("line", Text, nullable=False),
    )
    meta = Table(
        "judging_meta",
        md,
        Column("key", String(50), primary_key=True),
        Column("value", Text, nullable=False),
    )
    return {
        "md": md,
        "pairs": pairs,
        "people": people,
        "assignments": assignments,
        "events": events,
        "review": review,
        "meta": meta,
    }  # type: ignore[return-value]
