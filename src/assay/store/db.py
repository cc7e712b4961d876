"""The history store's tables, engine set-up and schema migrations.

Three tables (SQLAlchemy Core): ``results`` holds every result as its JSON
payload plus indexed columns, ``result_metrics`` one row per aggregate metric
value, and ``schema_version`` the versions applied. :func:`connect` creates
the engine (SQLite: WAL journal, busy timeout, ``BEGIN IMMEDIATE`` so writers
queue instead of failing) and brings an older schema up to
:data:`SCHEMA_VERSION` inside one locked transaction.

Schema history: version 1 had no ``config_hash``, ``corpus_version`` or
``dirty`` columns; version 2 adds them and back-fills them from the payloads.
Version 3 adds ``role``: why a result was recorded. ``NULL`` is a result
recorded on its own (``assay evaluate --record``); the candidate evaluation of
a gate is :data:`ROLE_GATE_PASSED` or :data:`ROLE_GATE_FAILED`, back-filled
from the stored gate results. A failed gate's candidate is never a baseline.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.core.redact import redact_text
from assay.io.textio import parse_json
from assay.store.columns import index_columns

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy import Connection, Engine, MetaData, Table

#: The schema this assay writes. Older stores are migrated when opened.
SCHEMA_VERSION = 3
#: ``role`` of the candidate evaluation of a gate that passed (a valid baseline).
ROLE_GATE_PASSED = "gate-passed"
#: ``role`` of the candidate evaluation of a gate that failed (never a baseline).
ROLE_GATE_FAILED = "gate-failed"
#: Milliseconds a SQLite writer waits for the lock before giving up.
BUSY_TIMEOUT_MS = 60_000
#: Seconds a database server has to complete a connection (TCP, TLS, start-up and
#: authentication) before the store is reported unreachable; ``?connect_timeout=N``
#: in the URL sets another bound.
CONNECT_TIMEOUT_S = 10
#: Key of the PostgreSQL advisory lock that serialises migrations.
_PG_LOCK_KEY = 0x61737361  # "assa"


def _tables() -> tuple[MetaData, Table, Table, Table]:
    from sqlalchemy import (
        Boolean,
        Column,
        DateTime,
        Float,
        ForeignKey,
        Integer,
        MetaData,
        String,
        Table,
        Text,
    )

    md = MetaData()
    results = Table(
        "results",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("kind", String(32), nullable=False, index=True),
        Column("schema_version", String(16), nullable=False),
        Column("system", String(200), index=True),
        Column("config_hash", String(80)),
        Column("judgments_name", String(200), index=True),
        Column("judgments_version", String(80)),
        Column("corpus_version", String(80)),
        Column("created_at", String(40), index=True),
        Column("git_commit", String(64)),
        Column("dirty", Boolean),
        Column("assay_version", String(40)),
        Column("payload", Text, nullable=False),
        Column("role", String(32)),
    )
    metrics = Table(
        "result_metrics",
        md,
        Column(
            "result_id",
            Integer,
            ForeignKey("results.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        Column("metric", String(200), primary_key=True, index=True),
        Column("value", Float, nullable=False),
    )
    versions = Table(
        "schema_version",
        md,
        Column("version", Integer, primary_key=True),
        Column("applied_at", DateTime(timezone=True), nullable=False),
    )
    return md, results, metrics, versions


METADATA, RESULTS, METRICS, VERSIONS = _tables()


#: Database backends a store may live on.
BACKENDS = ("sqlite", "postgresql")


def _shown(text: str) -> str:
    """``text`` fit for a message: a URL's password hidden, ``user:pw@`` before a host masked."""

    if "://" in text:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            return make_url(text).render_as_string(hide_password=True)
        except (ArgumentError, ValueError):
            pass
    shown = redact_text(text)
    return f"***@{shown.rsplit('@', 1)[1]}" if "@" in shown else shown


def store_url(text: str, option: str = "--store") -> str:
    """The SQLAlchemy URL of a store given as ``text``: a URL, or the path of a SQLite file.

    A URL must name a known backend (:data:`BACKENDS`); a value without
    ``://`` is a file path, but one holding a ``:`` (``::::``, ``sqlite:x``)
    is refused as a mistyped URL instead of becoming a file of that name
    (write ``sqlite:///path`` to mean it); on Windows a drive letter is
    allowed. Raises :class:`UsageError` naming ``option`` (and no password).
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    hint = "write a file path, sqlite:///path/history.db or postgresql://user@host/db"
    if not text.strip():
        raise UsageError(f"{option} is empty; {hint}")
    if "://" not in text:
        drive = os.name == "nt" and len(text) > 2 and text[1] == ":" and text[2] in "\\/"
        if ":" in (text[2:] if drive else text):
            raise UsageError(
                f"{option} {_shown(text)!r} is neither a store URL nor a plain path; {hint}"
            )
        return f"sqlite:///{text}"
    try:
        backend = make_url(text).get_backend_name()
    except (ArgumentError, ValueError):
        backend = None
    if backend not in BACKENDS:
        raise UsageError(f"{option} {_shown(text)!r} is not a known store URL; {hint}")
    return text


def _sqlite_setup(engine: Engine, *, read_only: bool = False) -> None:
    """WAL journal, busy timeout, foreign keys; transactions begin IMMEDIATE.

    pysqlite's own transaction handling is switched off (``isolation_level =
    None``) and SQLAlchemy's ``begin`` event emits ``BEGIN IMMEDIATE``, the
    recipe of the SQLAlchemy SQLite dialect documentation: a writer takes the
    write lock up front, so concurrent writers wait (busy timeout) rather than
    failing with "database is locked" on a lock upgrade. A reader
    (``read_only``) keeps the file's journal mode and begins plain deferred
    transactions, which need no write access.
    """
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA synchronous = FULL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def create_engine_for(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and immediate transactions."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise UsageError(
            f"not a store URL: {url!r}",
        ) from None
    try:
        if parsed.get_backend_name() == "sqlite":
            engine = create_engine(parsed, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
            _sqlite_setup(engine)
            return engine
        args = {} if "connect_timeout" in parsed.query else {"connect_timeout": CONNECT_TIMEOUT_S}
        return create_engine(parsed, pool_pre_ping=True, connect_args=args)
    except (NoSuchModuleError, ImportError) as exc:
        raise UsageError(
            f"cannot open store {parsed.render_as_string(hide_password=True)}: {exc}"
        ) from None


def sqlite_reader(path: Path, *, immutable: bool = False) -> Engine:
    """A read-only engine on the SQLite file ``path`` (``mode=ro``; see :func:`_sqlite_setup`).

    ``immutable`` also tells SQLite that nobody writes the file, so it needs no
    ``-shm`` file beside it: the way to read a WAL store in a folder the
    reader cannot write.
    """
    import sqlite3
    from urllib.parse import quote

    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )

    engine = create_engine("sqlite://", creator=connect, poolclass=NullPool)
    _sqlite_setup(engine, read_only=True)
    return engine


def reader_engine(path: Path) -> Engine | None:
    """A read-only engine on the SQLite store ``path`` when it has the current schema.

    ``None`` when the file needs creating or migrating (which needs a writer).
    Tries ``mode=ro`` first, then ``immutable`` (a WAL store in a folder the
    reader cannot write, where SQLite cannot create its ``-shm`` file); raises
    the database error when neither opens it.
    """
    from sqlalchemy.exc import DatabaseError

    failure: Exception | None = None
    for immutable in (False, True):
        engine = sqlite_reader(path, immutable=immutable)
        try:
            with engine.connect() as conn:
                found = current_version(conn)
        except (DatabaseError, ValueError) as exc:  # ValueError: undecodable text
            engine.dispose()
            failure = exc
            continue
        if found == SCHEMA_VERSION:
            return engine
        engine.dispose()
        return None
    assert failure is not None
    raise failure


# --------------------------------------------------------------------------- migrations
def current_version(conn: Connection) -> int | None:
    """The schema version of the store on ``conn``; 0: not assay's; None: no tables."""
    from sqlalchemy import func, inspect, select

    insp = inspect(conn)
    if not insp.has_table("schema_version"):
        return 0 if insp.has_table("results") else None
    value = conn.execute(select(func.max(VERSIONS.c.version))).scalar()
    return int(value) if value is not None else 0


def _add_column(conn: Connection, table: Table, name: str) -> None:
    from sqlalchemy.schema import CreateColumn

    ddl = CreateColumn(table.c[name]).compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE {table.name} ADD COLUMN {ddl}")


def _migrate_1_to_2(conn: Connection) -> None:
    """Add ``config_hash``, ``corpus_version``, ``dirty``; back-fill from payloads."""
    from sqlalchemy import select, update

    for name in ("config_hash", "corpus_version", "dirty"):
        _add_column(conn, RESULTS, name)
    rows = conn.execute(select(RESULTS.c.id, RESULTS.c.payload)).all()
    for row_id, payload in rows:
        cols = index_columns(parse_json(payload))
        conn.execute(
            update(RESULTS)
            .where(RESULTS.c.id == row_id)
            .values(
                config_hash=cols["config_hash"],
                corpus_version=cols["corpus_version"],
                dirty=cols["dirty"],
            )
        )


def _migrate_2_to_3(conn: Connection) -> None:
    """Add ``role``; mark the candidate of every recorded gate as passed or failed."""
    from sqlalchemy import select, update

    _add_column(conn, RESULTS, "role")
    gates = conn.execute(select(RESULTS.c.payload).where(RESULTS.c.kind == "gate")).scalars()
    roles: dict[int, str] = {}
    for payload in gates:
        try:
            data = parse_json(payload)
        except ValueError:
            continue
        cand = data.get("candidate_run_id") if isinstance(data, dict) else None
        if isinstance(cand, int) and not isinstance(cand, bool):
            roles[cand] = ROLE_GATE_PASSED if data.get("passed") else ROLE_GATE_FAILED
    for run_id, role in roles.items():
        conn.execute(
            update(RESULTS)
            .where(RESULTS.c.id == run_id, RESULTS.c.kind == "evaluation")
            .values(role=role)
        )


#: ``MIGRATIONS[v]`` brings a version-``v`` store to version ``v + 1``.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3}


def migrate(engine: Engine) -> int:
    """Create or upgrade the schema to :data:`SCHEMA_VERSION`; return the version found.

    Runs in one transaction holding the database's write lock (SQLite
    ``BEGIN IMMEDIATE``, PostgreSQL advisory lock), so processes opening the
    store at the same time migrate it once. A store newer than this assay is
    refused with a :class:`UsageError`.
    """
    from sqlalchemy import insert, text

    now = datetime.now(UTC)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
        found = current_version(conn)
        if found is None:
            METADATA.create_all(conn)
            conn.execute(insert(VERSIONS).values(version=SCHEMA_VERSION, applied_at=now))
            return 0
        if found == 0:
            raise UsageError(
                "the store has a results table but no schema_version table; "
                "it was not written by assay"
            )
        if found > SCHEMA_VERSION:
            raise UsageError(
                f"the store has schema version {found}, newer than this assay understands "
                f"({SCHEMA_VERSION}); upgrade assay"
            )
        for version in range(found, SCHEMA_VERSION):
            MIGRATIONS[version](conn)
            conn.execute(insert(VERSIONS).values(version=version + 1, applied_at=now))
        return found
