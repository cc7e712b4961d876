"""The judging store: pairs, who must grade them, and every grade as an append-only event.

Tables (SQLAlchemy Core, SQLite or PostgreSQL through
:func:`assay.store.db.create_engine_for`, so SQLite runs with WAL, a busy
timeout, ``synchronous = FULL`` and ``BEGIN IMMEDIATE`` transactions):

* ``judging_pairs`` -- one row per pool pair (its pool line as JSON);
* ``judging_people`` -- assessors and adjudicators;
* ``judging_assignments`` -- which assessors grade which pair (``overlap``
  each, the least loaded first);
* ``judging_events`` -- every action, never updated or deleted: who, when,
  the pair, the kind (``grade``, ``later``, ``undo``, ``adjudicate``), the new
  value and the value it replaced (``previous``), a reason.
* ``judging_review`` -- for a review of model grades, each item's line and
  model grade;
* ``judging_meta`` -- the secret that signs login links and CSRF tokens, and
  whether a review shows the model's grades.

A state is replayed from the events, so nothing acknowledged is lost when the
server dies: an action is acknowledged only after its transaction committed.
Each assessor's state is their own: two people grading the same pair at once
write two events and never overwrite each other. Writes of one person are
serialised (a row lock on PostgreSQL, the database lock on SQLite) so that
``previous`` is always the value the event replaced.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.io.textio import parse_json
from assay.judging._schema import tables
from assay.judging.limits import MAX_REASON_CHARS
from assay.judging.pool import PoolPair
from assay.store.db import create_engine_for, store_url

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy import Connection, Engine

#: Values a person can give a pair: grades, ``u`` (unrateable) and ``later``.
GRADES = ("0", "1", "2", "3")
UNRATEABLE = "u"
LATER = "later"
#: Event kinds.
KINDS = ("grade", "later", "undo", "adjudicate")


@dataclass(frozen=True)
class Event:
    """One stored action (a row of ``judging_events``)."""

    id: int
    pair_id: int
    assessor: str
    kind: str
    value: str | None
    previous: str | None
    undoes: int | None
    reason: str | None
    created_at: str


@dataclass(frozen=True)
class StoredPair:
    """A pair of the store: its id, place in the pool and pool line."""

    id: int
    position: int
    pair: PoolPair


def now() -> str:
    """The current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def replay(events: Iterable[Event]) -> tuple[dict[int, Event], list[Event]]:
    """The state each event log leads to, for ONE person.

    Returns ``({pair_id: event that set its current value}, undo stack)``; an
    ``undo`` pops the newest action still standing and brings back the value
    it replaced. ``adjudicate`` events are not part of a person's grading.
    """
    current: dict[int, Event] = {}
    stack: list[Event] = []
    for e in events:
        if e.kind == "adjudicate":
            continue
        if e.kind == "undo":
            if stack:
                stack.pop()
            current[e.pair_id] = e
        else:
            stack.append(e)
            current[e.pair_id] = e
    return current, stack


def _check_reason(reason: str | None) -> None:
    """Refuse a reason longer than :data:`~assay.judging.limits.MAX_REASON_CHARS`."""
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        raise UsageError(
            f"a reason is at most {MAX_REASON_CHARS} characters; this one has {len(reason)}"
        )


class JudgingStore:
    """A judging store at ``url`` (a path or SQLAlchemy URL; tables created if missing)."""

    def __init__(self, url: str) -> None:

        self.url = store_url(url)
        self.engine: Engine = create_engine_for(self.url)
        self.t = tables()
        self.t["md"].create_all(self.engine)  # type: ignore[attr-defined]
        self.secret = self._secret()

    # ------------------------------------------------------------------ set-up
    def _secret(self) -> bytes:
        from sqlalchemy import select

        meta = self.t["meta"]
        with self.engine.begin() as conn:
            row = conn.execute(select(meta.c.value).where(meta.c.key == "secret")).first()
            if row is None:
                value = secrets.token_hex(32)
                conn.execute(meta.insert().values(key="secret", value=value))
                return value.encode()
            return str(row[0]).encode()

    def setup(
        self,
        pairs: Sequence[PoolPair],
        assessors: Sequence[str],
        overlap: int,
        adjudicators: Sequence[str] = (),
    ) -> None:
        """Add the pool's pairs and the people; give every pair ``overlap`` assessors.

        Idempotent: pairs and people already stored are kept, assignments only
        added. Raises :class:`UsageError` for a bad overlap or name.
        """
        self._query_cache: dict[int, str] | None = None  # pairs may be added: read again
        names = list(dict.fromkeys(assessors))
        if not names:
            raise UsageError("--assessors needs at least one name, e.g. --assessors alice,bob")
        for name in [*names, *adjudicators]:
            if not name or not all(c.isalnum() or c in "-_." for c in name):
                raise UsageError(f"assessor name {name!r}: use letters, digits, '-', '_' or '.'")
        if not 1 <= overlap <= len(names):
            raise UsageError(f"--overlap must be between 1 and {len(names)}; got {overlap}")
        with self.engine.begin() as conn:
            roles = {n: "assessor" for n in names} | {a: "adjudicator" for a in adjudicators}
            self._add_people(conn, roles)
            self._add_pairs(conn, pairs)
            self._assign(conn, names, overlap)

    def _add_people(self, conn: Connection, roles: dict[str, str]) -> None:
        """Add new people; a known person's role follows the latest set-up."""
        from sqlalchemy import select

        people = self.t["people"]
        known = {n: r for n, r in conn.execute(select(people.c.name, people.c.role))}
        rows = [{"name": n, "role": r} for n, r in roles.items() if n not in known]
        if rows:
            conn.execute(people.insert(), rows)
        for name, role in roles.items():
            if name in known and known[name] != role:
                conn.execute(people.update().where(people.c.name == name).values(role=role))

    def _add_pairs(self, conn: Connection, pairs: Sequence[PoolPair]) -> None:
        from sqlalchemy import func, select

        table = self.t["pairs"]
        known = {(q, d) for q, d in conn.execute(select(table.c.query_id, table.c.doc_id))}
        start = conn.execute(select(func.coalesce(func.max(table.c.position), 0))).scalar_one()
        rows = []
        for p in pairs:
            if (p.query_id, p.doc_id) not in known:
                payload = json.dumps(p.to_json(), ensure_ascii=False)
                rows.append(
                    {
                        "position": start + len(rows) + 1,
                        "query_id": p.query_id,
                        "doc_id": p.doc_id,
                        "payload": payload,
                    }
                )
        if rows:
            conn.execute(table.insert(), rows)

    def _assign(self, conn: Connection, names: list[str], overlap: int) -> None:
        from sqlalchemy import select

        pairs, asg = self.t["pairs"], self.t["assignments"]
        have: dict[int, set[str]] = {}
        for pid, who in conn.execute(select(asg.c.pair_id, asg.c.assessor)):
            have.setdefault(pid, set()).add(who)
        load = {n: 0 for n in names}
        for who_set in have.values():
            for who in who_set:
                if who in load:
                    load[who] += 1
        rows = []
        for (pid,) in conn.execute(select(pairs.c.id).order_by(pairs.c.position)):
            given = have.get(pid, set())
            free = [n for n in names if n not in given]
            for name in sorted(free, key=lambda n: load[n])[: max(0, overlap - len(given))]:
                rows.append({"pair_id": pid, "assessor": name})
                load[name] += 1
        if rows:
            conn.execute(asg.insert(), rows)

    def add_review(self, items: Sequence[Any], shown: bool) -> None:
        """Keep each review item's line and model grade (after :meth:`setup` with its pairs).

        ``shown`` says whether reviewers see the model's grade; it is fixed for
        a store (a blind review cannot turn into a shown one half-way).
        """
        from sqlalchemy import select

        pairs, review, meta = self.t["pairs"], self.t["review"], self.t["meta"]
        flag = "shown" if shown else "blind"
        with self.engine.begin() as conn:
            row = conn.execute(select(meta.c.value).where(meta.c.key == "review")).first()
            if row is not None and row[0] != flag:
                raise UsageError(
                    f"{self.url} holds a {row[0]} review; this one would be {flag}: "
                    "use another --store"
                )
            if row is None:
                conn.execute(meta.insert().values(key="review", value=flag))
            ids = {
                (q, d): i
                for i, q, d in conn.execute(select(pairs.c.id, pairs.c.query_id, pairs.c.doc_id))
            }
            known = set(conn.execute(select(review.c.pair_id)).scalars())
            rows = []
            for item in items:
                pid = ids[(item.pair.query_id, item.pair.doc_id)]
                if pid not in known:
                    line = json.dumps(item.line, ensure_ascii=False)
                    rows.append({"pair_id": pid, "model_grade": item.model_grade, "line": line})
            if rows:
                conn.execute(review.insert(), rows)

    def review_items(self) -> dict[int, tuple[dict[str, Any], int | None]]:
        """``{pair_id: (review line, model grade)}`` of a review store (empty otherwise)."""
        from sqlalchemy import select

        review = self.t["review"]
        with self.engine.connect() as conn:
            rows = conn.execute(select(review.c.pair_id, review.c.line, review.c.model_grade))
            return {pid: (parse_json(line), grade) for pid, line, grade in rows}

    def review_shown(self) -> bool:
        """True when this store's review shows reviewers the model's grades."""
        from sqlalchemy import select

        meta = self.t["meta"]
        with self.engine.connect() as conn:
            row = conn.execute(select(meta.c.value).where(meta.c.key == "review")).first()
        return row is not None and row[0] == "shown"

    # ------------------------------------------------------------------ secrets
    def sign(self, purpose: str, name: str) -> str:
        """An HMAC of ``purpose:name`` under the store's secret (login and CSRF tokens)."""
        digest = hmac.new(self.secret, f"{purpose}:{name}".encode(), hashlib.sha256)
        return digest.hexdigest()[:32]

    def check(self, purpose: str, name: str, token: str) -> bool:
        """True when ``token`` is :meth:`sign` of ``purpose`` and ``name`` (constant time).

        Compared as bytes: any text a request carries (``²``, emoji) is simply wrong.
        """
        given = (token or "").encode("utf-8", errors="replace")
        return hmac.compare_digest(self.sign(purpose, name).encode(), given)

    def people(self) -> dict[str, str]:
        """``{name: role}`` of everyone who may log in."""
        from sqlalchemy import select

        people = self.t["people"]
        with self.engine.connect() as conn:
            return {n: r for n, r in conn.execute(select(people.c.name, people.c.role))}

    # ------------------------------------------------------------------ reading
    def pairs(self, ids: Iterable[int] | None = None) -> dict[int, StoredPair]:
        """The stored pairs (all, or those of ``ids``) by id."""
        from sqlalchemy import select

        table = self.t["pairs"]
        query = select(table.c.id, table.c.position, table.c.payload).order_by(table.c.position)
        if ids is not None:
            query = query.where(table.c.id.in_(list(ids)))
        out = {}
        with self.engine.connect() as conn:
            for pid, position, payload in conn.execute(query):
                out[pid] = StoredPair(pid, position, PoolPair.from_json(parse_json(payload)))
        return out

    def assigned(self, assessor: str | None = None) -> dict[str, list[int]]:
        """``{assessor: [pair ids in pool order]}`` (one assessor's when given)."""
        from sqlalchemy import select

        asg, pairs = self.t["assignments"], self.t["pairs"]
        query = (
            select(asg.c.assessor, asg.c.pair_id)
            .join(pairs, pairs.c.id == asg.c.pair_id)
            .order_by(pairs.c.position)
        )
        if assessor is not None:
            query = query.where(asg.c.assessor == assessor)
        out: dict[str, list[int]] = {}
        with self.engine.connect() as conn:
            for who, pid in conn.execute(query):
                out.setdefault(who, []).append(pid)
        return out

    def events(self, assessor: str | None = None, conn: Connection | None = None) -> list[Event]:
        """Every event in the order written (one person's when ``assessor`` is given)."""
        from sqlalchemy import select

        ev = self.t["events"]
        query = select(ev).order_by(ev.c.id)
        if assessor is not None:
            query = query.where(ev.c.assessor == assessor)
        if conn is not None:
            return [Event(**row._mapping) for row in conn.execute(query)]
        with self.engine.connect() as c:
            return [Event(**row._mapping) for row in c.execute(query)]

    def state(self, assessor: str) -> dict[int, str | None]:
        """``{pair_id: current value}`` of one person's assigned pairs (None: not yet graded)."""
        current, _ = replay(self.events(assessor))
        ids = self.assigned(assessor).get(assessor, [])
        return {pid: (current[pid].value if pid in current else None) for pid in ids}

    def next_pair(self, assessor: str) -> int | None:
        """The next pair to show: the first ungraded one, else the first put off for later.

        Pairs are taken query by query (queries in the order they first appear in the
        assessor's pool order), so a query's documents are judged together even when
        the pool interleaves queries.
        """
        state = self.state(assessor)
        query_of = self._query_of()
        first: dict[str, int] = {}
        for i, pid in enumerate(state):
            first.setdefault(query_of.get(pid, ""), i)
        order = sorted(enumerate(state), key=lambda x: (first[query_of.get(x[1], "")], x[0]))
        for wanted in (None, LATER):
            for _, pid in order:
                if state[pid] == wanted:
                    return pid
        return None

    def _query_of(self) -> dict[int, str]:
        """``{pair id: query id}``, read once (pairs do not change once stored)."""
        cached = getattr(self, "_query_cache", None)
        if cached is None or len(cached) == 0:
            cached = {pid: sp.pair.query_id for pid, sp in self.pairs().items()}
            self._query_cache = cached
        return cached

    def progress(self) -> dict[str, dict[str, int]]:
        """Per assessor: pairs assigned, done (graded or unrateable), put off, left."""
        out = {}
        for who, ids in self.assigned().items():
            current, _ = replay(self.events(who))
            values = [current[p].value if p in current else None for p in ids]
            done = sum(v is not None and v != LATER for v in values)
            later = sum(v == LATER for v in values)
            out[who] = {
                "assigned": len(ids),
                "done": done,
                "later": later,
                "left": len(ids) - done - later,
            }
        return out

    # ------------------------------------------------------------------ writing
    def act(self, assessor: str, pair_id: int, value: str, reason: str | None = None) -> Event:
        """Record a grade (``0``-``3``), ``u`` or ``later`` by ``assessor`` on a pair of theirs."""
        if value not in (*GRADES, UNRATEABLE, LATER):
            raise UsageError(f"value must be one of 0, 1, 2, 3, u or later; got {value[:20]!r}")
        _check_reason(reason)
        kind = "later" if value == LATER else "grade"
        with self.engine.begin() as conn:
            self._lock(conn, assessor)
            if pair_id not in self._assigned_ids(conn, assessor):
                raise UsageError(f"pair {pair_id} is not assigned to {assessor}")
            current, _ = replay(self.events(assessor, conn))
            previous = current[pair_id].value if pair_id in current else None
            return self._insert(conn, pair_id, assessor, kind, value, previous, None, reason)

    def undo(self, assessor: str) -> Event | None:
        """Undo ``assessor``'s newest action still standing; ``None`` when there is none."""
        with self.engine.begin() as conn:
            self._lock(conn, assessor)
            current, stack = replay(self.events(assessor, conn))
            if not stack:
                return None
            target = stack[-1]
            now_value = current[target.pair_id].value
            return self._insert(
                conn, target.pair_id, assessor, "undo", target.previous, now_value, target.id, None
            )

    def adjudicate(self, adjudicator: str, pair_id: int, value: str, reason: str) -> Event:
        """Set the final grade of a pair with a reason (an ``adjudicate`` event)."""
        from sqlalchemy import select

        if value not in GRADES:
            raise UsageError(f"an adjudicated grade is 0, 1, 2 or 3; got {value[:20]!r}")
        if not reason.strip():
            raise UsageError("an adjudication needs a reason")
        _check_reason(reason)
        with self.engine.begin() as conn:
            self._lock(conn, adjudicator)
            if not conn.execute(
                select(self.t["pairs"].c.id).where(self.t["pairs"].c.id == pair_id)
            ).first():
                raise UsageError(f"no pair {pair_id} in this store")
            before = [
                e
                for e in self.events(None, conn)
                if e.kind == "adjudicate" and e.pair_id == pair_id
            ]
            previous = before[-1].value if before else None
            return self._insert(
                conn, pair_id, adjudicator, "adjudicate", value, previous, None, reason.strip()
            )

    def _lock(self, conn: Connection, name: str) -> None:
        """Serialise one person's writes (``FOR UPDATE``; SQLite's lock is already held)."""
        from sqlalchemy import select

        people = self.t["people"]
        row = conn.execute(
            select(people.c.name).where(people.c.name == name).with_for_update()
        ).first()
        if row is None:
            raise UsageError(f"unknown assessor {name!r}")

    def _assigned_ids(self, conn: Connection, assessor: str) -> set[int]:
        from sqlalchemy import select

        asg = self.t["assignments"]
        return set(conn.execute(select(asg.c.pair_id).where(asg.c.assessor == assessor)).scalars())

    def _insert(
        self,
        conn: Connection,
        pair_id: int,
        assessor: str,
        kind: str,
        value: str | None,
        previous: str | None,
        undoes: int | None,
        reason: str | None,
    ) -> Event:
        row: dict[str, Any] = {
            "pair_id": pair_id,
            "assessor": assessor,
            "kind": kind,
            "value": value,
            "previous": previous,
            "undoes": undoes,
            "reason": reason,
            "created_at": now(),
        }
        result = conn.execute(self.t["events"].insert().values(**row))
        return Event(id=int(result.inserted_primary_key[0]), **row)

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()
