"""The history store: record results, list them over time, fetch one back.

``open_store(url)`` opens (and creates or migrates) a store: a SQLAlchemy URL
such as ``sqlite:///.assay/history.db`` (the default) or
``postgresql+psycopg://user@host:5432/db``; ``$ASSAY_STORE`` overrides the
default, ``--store URL`` on the command line overrides both. Every result is
recorded in one transaction, so a result is either entirely present or absent.

Commands that record by default use :func:`record_quietly`: a store that
cannot be opened or written costs a one-line warning on stderr, never the
user's report. Opening a store imports SQLAlchemy and the store modules only
(no numpy, rich or scoring code).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field

from assay.core.errors import UsageError
from assay.core.redact import redact_text, scrub_secrets
from assay.io.textio import parse_json
from assay.results.models import ResultModel, load_result
from assay.store.columns import index_columns, metric_values
from assay.store.db import (
    METRICS,
    RESULTS,
    ROLE_GATE_FAILED,
    ROLE_GATE_PASSED,
    create_engine_for,
    migrate,
    reader_engine,
    store_url,
)

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy import Connection, Engine

#: A gate result (``assay.procedures.GateResult``: a result model with ``passed``);
#: typed by its base so that the store does not import the procedures above it.
GateResult = TypeVar("GateResult", bound=ResultModel)

#: The store used when neither ``--store`` nor ``$ASSAY_STORE`` is given.
DEFAULT_URL = "sqlite:///.assay/history.db"
#: Environment variable naming the store.
ENV_VAR = "ASSAY_STORE"


class HistoryEntry(BaseModel):
    """One recorded result: its indexed columns and aggregate numbers (no payload)."""

    run_id: int
    kind: str
    schema_version: str
    system: str | None = None
    config_hash: str | None = None
    judgments_name: str | None = None
    judgments_version: str | None = None
    corpus_version: str | None = None
    created_at: str | None = None
    git_commit: str | None = None
    dirty: bool | None = None
    assay_version: str | None = None
    role: str | None = Field(
        None, description="None: recorded on its own; gate-passed / gate-failed: a gate's candidate"
    )
    metrics: dict[str, float] = Field(default_factory=dict)


def resolve_url(url: str | None = None) -> str:
    """The store URL: ``url``, else ``$ASSAY_STORE``, else :data:`DEFAULT_URL`.

    A value without ``://`` is taken as the path of a SQLite file; a mistyped
    or unknown URL is refused (:func:`assay.store.db.store_url`).
    """

    if url:
        return store_url(url)
    env = os.environ.get(ENV_VAR)
    return store_url(env, f"${ENV_VAR}") if env else DEFAULT_URL


def _sqlite_file(url: str) -> Path | None:
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except (ValueError, TypeError) as exc:
        from sqlalchemy.exc import ArgumentError

        raise ArgumentError(str(exc)) from None
    if parsed.get_backend_name() != "sqlite":
        return None
    db = parsed.database
    if not db or db == ":memory:" or db.startswith("file:"):
        return None
    return Path(db)


def _payload(result: Any) -> str:

    if isinstance(result, BaseModel):
        text = scrub_secrets(result.model_dump_json())  # assay.core.redact: never stored
        if "kind" not in type(result).model_fields and "kind" not in (result.model_extra or {}):
            raise UsageError(f"cannot record a {type(result).__name__}: it has no 'kind'")
        return text
    if isinstance(result, dict):
        if "kind" not in result:
            raise UsageError("cannot record a result without a 'kind' field")
        return scrub_secrets(json.dumps(result))
    raise UsageError(f"cannot record a {type(result).__name__}; expected an assay result")


class Store:
    """A history store on one database (see :func:`open_store`)."""

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = url

    def __repr__(self) -> str:
        return f"Store({_safe_url(self.url)!r})"

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn a database failure while reading into a :class:`UsageError` naming the store.

        A damaged file ("database disk image is malformed"), a lost server or
        a row that no longer makes sense is the store's problem, not a bug.
        """
        from sqlalchemy.exc import DatabaseError

        try:
            yield
        except (DatabaseError, ValueError) as exc:  # bad text and bad rows are ValueErrors
            raise UsageError(
                f"cannot read the store {_safe_url(self.url)}: {_first_line(exc)} "
                "(a damaged file or a lost server: restore the store from a backup "
                "or use another --store)"
            ) from None

    def close(self) -> None:
        """Release the store's connections."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    @staticmethod
    def _insert(conn: Connection, text: str, role: str | None = None) -> int:
        """Insert one result's JSON payload ``text`` and its metric rows; its run id."""
        from sqlalchemy import insert

        data = parse_json(text)
        cols = index_columns(data)
        values = metric_values(data)
        run_id = conn.execute(
            insert(RESULTS).values(**cols, payload=text, role=role).returning(RESULTS.c.id)
        ).scalar_one()
        if values:
            conn.execute(
                insert(METRICS),
                [{"result_id": run_id, "metric": m, "value": v} for m, v in values.items()],
            )
        return int(run_id)

    def record(self, result: Any, *, role: str | None = None) -> int:
        """Store one result (any kind) in one transaction; return its run id.

        ``role`` marks why it was recorded (see :mod:`assay.store.db`); leave it
        ``None`` for a result recorded on its own.
        """
        text = _payload(result)
        with self.engine.begin() as conn:
            return self._insert(conn, text, role)

    def record_gate(self, candidate: Any, gate: GateResult) -> GateResult:
        """Store a gate's candidate evaluation and the gate result in one transaction.

        The candidate is marked ``gate-passed`` or ``gate-failed`` (a failed
        candidate is never picked as a baseline by :meth:`last`). Returns the
        gate result with ``candidate_run_id`` filled in.
        """

        role = ROLE_GATE_PASSED if getattr(gate, "passed", False) else ROLE_GATE_FAILED
        text = _payload(candidate)
        with self.engine.begin() as conn:
            cand_id = self._insert(conn, text, role)
            gate = gate.model_copy(update={"candidate_run_id": cand_id})
            self._insert(conn, _payload(gate))
        return gate

    # ------------------------------------------------------------------ reading
    def _query(
        self,
        *,
        system: str | None,
        judgments: str | None,
        metric: str | None,
        kind: str | None,
    ) -> Any:
        from sqlalchemy import or_, select

        cols = [c for c in RESULTS.c if c.name != "payload"]
        stmt = select(*cols)
        if system is not None:
            stmt = stmt.where(RESULTS.c.system == system)
        if judgments is not None:
            stmt = stmt.where(
                or_(RESULTS.c.judgments_name == judgments, RESULTS.c.judgments_version == judgments)
            )
        if kind is not None:
            stmt = stmt.where(RESULTS.c.kind == kind)
        if metric is not None:
            has = select(METRICS.c.result_id).where(METRICS.c.metric == metric)
            stmt = stmt.where(RESULTS.c.id.in_(has))
        return stmt

    def list(
        self,
        system: str | None = None,
        judgments: str | None = None,
        metric: str | None = None,
        *,
        kind: str | None = None,
    ) -> list[HistoryEntry]:
        """Recorded results, oldest first, filtered by system name, judgment set
        (name or version), metric present, and kind."""

        stmt = self._query(system=system, judgments=judgments, metric=metric, kind=kind)
        stmt = stmt.order_by(RESULTS.c.created_at, RESULTS.c.id)
        with self._reading():
            return self._list(stmt)

    def _list(self, stmt: Any) -> list[HistoryEntry]:
        from sqlalchemy import select

        with self.engine.connect() as conn:
            rows = conn.execute(stmt).mappings().all()
            ids = [r["id"] for r in rows]
            values: dict[int, dict[str, float]] = {i: {} for i in ids}
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                mstmt = select(METRICS).where(METRICS.c.result_id.in_(chunk))
                for rid, name, value in conn.execute(mstmt):
                    values[rid][name] = value
        return [
            HistoryEntry(
                run_id=r["id"],
                **{k: v for k, v in r.items() if k != "id"},
                metrics=values[r["id"]],
            )
            for r in rows
        ]

    def get(self, run_id: int | str) -> Any:
        """The result recorded as ``run_id`` (its pydantic model); UsageError if absent."""
        from sqlalchemy import select

        try:
            key = int(run_id)
        except (TypeError, ValueError):
            raise UsageError(f"a run id is a whole number, got {run_id!r}") from None
        with self._reading(), self.engine.connect() as conn:
            payload = conn.execute(
                select(RESULTS.c.payload).where(RESULTS.c.id == key)
            ).scalar_one_or_none()
        if payload is None:
            raise UsageError(f"no run {key} in the store {self!r}")
        try:
            return load_result(payload)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"run {key} in the store is not a readable result: {exc}") from None

    def _last_stmt(
        self, system: str | None, judgments: str | None, kind: str, include_failed: bool
    ) -> Any:
        from sqlalchemy import or_

        stmt = self._query(system=system, judgments=judgments, metric=None, kind=kind)
        if not include_failed:
            stmt = stmt.where(or_(RESULTS.c.role.is_(None), RESULTS.c.role != ROLE_GATE_FAILED))
        return stmt.order_by(RESULTS.c.id.desc()).limit(1)

    def last(
        self,
        system: str | None = None,
        judgments: str | None = None,
        *,
        kind: str = "evaluation",
        include_failed: bool = False,
    ) -> Any | None:
        """The most recent valid baseline of ``kind`` for a system and judgment set.

        A valid baseline is a result recorded on its own or the candidate of a
        gate that passed; the candidate of a failed gate is skipped unless
        ``include_failed`` (otherwise a failed gate would become the next
        gate's baseline, and the second attempt would pass).
        """
        run_id = self.last_id(system, judgments, kind=kind, include_failed=include_failed)
        return None if run_id is None else self.get(run_id)

    def last_id(
        self,
        system: str | None = None,
        judgments: str | None = None,
        *,
        kind: str = "evaluation",
        include_failed: bool = False,
    ) -> int | None:
        """The run id of :meth:`last`, or ``None``."""
        stmt = self._last_stmt(system, judgments, kind, include_failed)
        with self._reading(), self.engine.connect() as conn:
            row = conn.execute(stmt).mappings().first()
        return None if row is None else int(row["id"])

    def count(self) -> int:
        """How many results the store holds."""
        from sqlalchemy import func, select

        with self._reading(), self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(RESULTS)).scalar_one())


def _ignore_folder(folder: Path) -> None:
    """Keep a freshly created default ``.assay`` folder out of git (best effort)."""
    with contextlib.suppress(OSError):
        (folder / ".gitignore").write_text("# created by assay: the local history store\n*\n")


def _bad_url(resolved: str, exc: BaseException) -> UsageError:
    return UsageError(
        f"--store {redact_text(resolved)!r} is not a usable database URL ({exc}); "
        "write sqlite:///path/history.db or postgresql://..."
    )


def open_store(url: str | None = None, *, read_only: bool = False) -> Store:
    """Open the history store at ``url`` (see :func:`resolve_url`), creating or
    migrating its schema; a SQLite file's folder is created (the default
    ``.assay`` folder with a ``.gitignore``, so the store is not committed by
    accident).

    ``read_only`` (for readers such as ``assay history``) opens an existing
    SQLite store of the current schema without writing to it, so a store in a
    read-only file or folder can be read. A file or server that is not a
    usable store raises :class:`UsageError` naming the store.
    """
    from sqlalchemy.exc import ArgumentError

    resolved = resolve_url(url)
    try:
        path = _sqlite_file(resolved)
    except ArgumentError as exc:
        raise _bad_url(resolved, exc) from None
    if read_only and path is not None and path.is_file():
        from sqlalchemy.exc import DatabaseError

        try:
            engine = reader_engine(path)
        except (DatabaseError, ValueError) as exc:
            raise UsageError(
                f"cannot read the store {_safe_url(resolved)}: {_first_line(exc)} "
                "(is it an assay history store?)"
            ) from None
        if engine is not None:  # else it needs creating or migrating: the writer's path
            return Store(engine, resolved)
    if path is not None and not path.parent.is_dir():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the store folder {path.parent}: {exc}") from None
        if path.parent.name == ".assay":
            _ignore_folder(path.parent)
    return _open_writer(resolved)


def _open_writer(resolved: str) -> Store:
    from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError

    try:
        engine = create_engine_for(resolved)
    except (ValueError, ArgumentError, NoSuchModuleError) as exc:
        raise _bad_url(resolved, exc) from None
    try:
        migrate(engine)
    except (DatabaseError, ValueError) as exc:  # OperationalError, not a database, bad text
        engine.dispose()
        raise UsageError(
            f"cannot open the store {_safe_url(resolved)}: {_first_line(exc)} "
            "(is it an assay history store?)"
        ) from None
    return Store(engine, resolved)


# --------------------------------------------------------------------------- quiet recording
def _is_store_error(exc: BaseException) -> bool:
    from sqlalchemy.exc import SQLAlchemyError

    return isinstance(exc, UsageError | SQLAlchemyError | OSError)


def _safe_url(url: str | None) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(resolve_url(url)).render_as_string(hide_password=True)
    except Exception:  # only for a warning: never fail here
        return "the history store"


def _first_line(exc: BaseException | None) -> str:
    """The first line of a (database) error, at most 200 characters."""
    reason = str(getattr(exc, "orig", None) or exc or "").strip().splitlines()
    text = reason[0] if reason else type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _warn(url: str | None, exc: BaseException) -> None:
    """One line on stderr: the store failed, the report is unaffected."""
    text = _first_line(exc)
    sys.stderr.write(
        f"assay: warning: the result was not recorded in {_safe_url(url)}: {text} "
        "(the report is complete; --no-record skips recording)\n"
    )
    sys.stderr.flush()


def record_quietly(result: Any, url: str | None = None) -> int | None:
    """Record ``result`` in the store at ``url``; its run id, or ``None`` on a store error.

    A store that cannot be opened, migrated or written (a bad URL, a folder
    without write permission, a locked or newer database, a lost server) costs
    a one-line warning on stderr instead of an exception, so a command that
    records by default never loses the user's report. Other errors propagate,
    among them the :class:`UsageError` for something that is not a result.
    """
    text = _payload(result)
    try:
        with open_store(url) as store, store.engine.begin() as conn:
            return store._insert(conn, text)
    except Exception as exc:
        if not _is_store_error(exc):
            raise
        _warn(url, exc)
        return None


def record_gate_quietly(candidate: Any, gate: GateResult, url: str | None = None) -> GateResult:
    """:meth:`Store.record_gate` with :func:`record_quietly`'s error handling.

    Returns the gate result with ``candidate_run_id`` set, or unchanged when the
    store failed (after the warning).
    """
    _payload(candidate)  # not a result: a programming error, raised, not warned about
    try:
        with open_store(url) as store:
            return store.record_gate(candidate, gate)
    except Exception as exc:
        if not _is_store_error(exc):
            raise
        _warn(url, exc)
        return gate
