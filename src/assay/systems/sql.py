"""A search written in SQL as a system under test: PostgreSQL, DuckDB, SQLite, any SQLAlchemy URL.

``type = "sql"`` runs one ``query`` per question with ``:query`` (the text) and
``:k`` (the depth) bound, and ``:embedding`` (the query's vector, a list of
floats) when ``embedding_model`` is set (pgvector, DuckDB's vss). Rows give the
document id (``id_column``) and score (``score_column``; absent: the row order
is the ranking). ``setup`` statements run once on every new connection (load
an extension by path, set a search path, a statement timeout).

Connections come from one SQLAlchemy pool of ``concurrency`` connections; each
query is bounded by ``timeout`` (:func:`assay.systems.usercode.call_bounded`;
the driver's call is interrupted where it can be), and a database error is a
failed query, counted by the runner like any other failure. The URL's password
is never shown: the config carries the URL with it hidden, and the value is
registered with :mod:`assay.core.redact` so that no message can print it.
"""

from __future__ import annotations

import contextlib
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.hashing import content_version
from assay.core.redact import REDACTED, register_secret
from assay.systems.base import Hit, SystemError_
from assay.systems.schema import SqlTable, VectorTable
from assay.systems.usercode import UserCodeTimeout, call_bounded
from assay.systems.vector import encoder_for


def shown_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``<redacted>``."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.password is None:
        return url
    return parsed.set(password=REDACTED).render_as_string(hide_password=False)


class SqlSystem:
    """One SQL statement per query over a pooled SQLAlchemy engine (see the module doc)."""

    def __init__(
        self, name: str, url: str, options: Any, *, encoder: Any = None, base_dir: Any = None
    ) -> None:
        from sqlalchemy import text

        self.name = name
        self._url = url  # as written (shown in config); the engine opens ``_target``
        self._target = _file_relative_to(url, base_dir)
        self.over_depth = 0
        self._options = options
        self._statement = text(options.query)
        self._binds = set(self._statement._bindparams)
        self.timeout: float = options.timeout
        self.concurrency: int = options.concurrency
        self._encoder = encoder
        self._engine: Any = None
        self._lock = threading.Lock()
        if not self._binds & {"query", "embedding"}:
            raise UsageError(
                f"[systems.{name}].query must use :query (the text) or :embedding (its vector)"
            )
        if ("embedding" in self._binds) != (encoder is not None):
            raise UsageError(
                f"[systems.{name}]: :embedding in the query needs embedding_model, and "
                "embedding_model needs :embedding in the query"
            )

    @property
    def config(self) -> dict[str, Any]:
        """URL (password hidden), setup, SQL, columns and the query embedding's model."""
        o = self._options
        out: dict[str, Any] = {
            "type": "sql",
            "url": shown_url(self._url),
            "setup": list(o.setup),
            "query": o.query,
            "id_column": o.id_column,
            "score_column": o.score_column,
        }
        version = _file_version(self._target)
        if version is not None:  # a changed database file is a new configuration (run cache)
            out["corpus_version"] = version
        if self._encoder is not None:
            describe = getattr(self._encoder, "describe", None)
            out["embedding_model"] = describe() if callable(describe) else self._encoder.model_id
        return out

    def prepare(self) -> SqlSystem:
        """Open the pool (connections are made on first use); returns self."""
        from sqlalchemy import event

        with self._lock:
            if self._engine is None:
                try:
                    engine = _engine(self._target, self.concurrency, self.timeout)
                except Exception as exc:  # unknown dialect, missing driver, bad URL
                    raise UsageError(f"[systems.{self.name}].url: {exc}") from None
                setup = list(self._options.setup)
                if setup:

                    def on_connect(dbapi_connection: Any, _record: Any) -> None:
                        cursor = dbapi_connection.cursor()
                        try:
                            for statement in setup:
                                cursor.execute(statement)
                        finally:
                            cursor.close()

                    event.listen(engine, "connect", on_connect)
                self._engine = engine
        return self

    def close(self) -> None:
        """Close every pooled connection."""
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            engine.dispose()

    def search(self, query: str, k: int) -> list[Hit]:
        """One query; raises :class:`SystemError_` when it fails."""
        result = self.search_many([query], k)[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def search_many(self, queries: list[str], k: int) -> list[list[Hit] | BaseException]:
        """Every query, ``concurrency`` at a time; hits or the error, in order."""
        k = at_least("k", k)
        self.prepare()
        if not queries:
            return []
        vectors: list[Any] = [None] * len(queries)
        if self._encoder is not None:
            encode = getattr(self._encoder, "encode_queries", self._encoder.encode)
            vectors = [[float(x) for x in row] for row in encode(list(queries))]

        def one(item: tuple[str, Any]) -> list[Hit] | BaseException:
            try:
                return self._bounded(item[0], k, item[1])
            except Exception as exc:
                return exc

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(queries))) as pool:
            return list(pool.map(one, zip(queries, vectors, strict=True)))

    def _bounded(self, query: str, k: int, vector: Any) -> list[Hit]:
        held: dict[str, Any] = {}
        try:
            return call_bounded(
                lambda: self._execute(query, k, vector, held),
                timeout=self.timeout,
                what=f"sql system {self.name!r}",
            )
        except UserCodeTimeout:
            _interrupt(held.get("dbapi"))  # the abandoned statement stops where the driver can
            raise

    def _execute(self, query: str, k: int, vector: Any, held: dict[str, Any]) -> list[Hit]:
        from sqlalchemy.exc import SQLAlchemyError

        values = {"query": query, "k": k, "embedding": vector}
        params = {key: value for key, value in values.items() if key in self._binds}
        try:
            with self._engine.connect() as conn:
                held["dbapi"] = conn.connection.dbapi_connection
                rows = conn.execute(self._statement, params).mappings().fetchmany(k + 1)
        except SQLAlchemyError as exc:
            message = str(getattr(exc, "orig", None) or exc).splitlines()[0][:300]
            raise SystemError_(
                f"sql system {self.name!r}: {type(exc).__name__}: {message}"
            ) from None
        if len(rows) > k:  # counted as a Python system's longer lists are (the sidecar says)
            with self._lock:
                self.over_depth += 1
        return self._hits(rows[:k])

    def _hits(self, rows: list[Any]) -> list[Hit]:
        o = self._options
        out: list[Hit] = []
        for rank, row in enumerate(rows, start=1):
            if o.id_column not in row:
                raise SystemError_(
                    f"sql system {self.name!r}: no column {o.id_column!r} in the result "
                    f"(columns: {', '.join(row.keys())}); set id_column"
                )
            doc_id = row[o.id_column]
            if doc_id is None or doc_id == "":
                raise SystemError_(f"sql system {self.name!r}: row {rank} has no id")
            score = row.get(o.score_column) if o.score_column else None
            if score is not None:
                try:
                    score = float(score)
                except (TypeError, ValueError):
                    score = math.nan
                if not math.isfinite(score):
                    raise SystemError_(
                        f"sql system {self.name!r}: row {rank} has score {row[o.score_column]!r}"
                    )
            out.append(Hit(str(doc_id), score))
        return out

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray worker gets a copy): no lock, no open pool."""
        state = self.__dict__.copy()
        del state["_lock"]
        state["_engine"] = None  # each process opens its own pool
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SqlSystem({self.name!r}, {shown_url(self._url)!r})"


def _engine(url: str, size: int, timeout: float) -> Any:
    """A pool of ``size`` connections; an in-memory SQLite or DuckDB database gets one
    connection per thread (SQLAlchemy's choice for them), each set up by ``setup``."""
    from sqlalchemy import create_engine

    try:
        return create_engine(url, pool_size=size, max_overflow=0, pool_timeout=timeout)
    except TypeError:  # SingletonThreadPool takes a size only, and past it closes the
        # connection of the oldest thread it has seen, even one still in use. Each bounded
        # call runs on a thread of its own, so it keeps far more threads than run at once.
        return create_engine(url, pool_size=max(64, 4 * size))


def _file_version(url: str) -> str | None:
    """For a SQLite or DuckDB file: a version of its size and modification time (else None)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() not in ("sqlite", "duckdb") or not database:
        return None
    path = Path(database)
    if database == ":memory:" or not path.is_file():
        return None
    stat = path.stat()
    return content_version({"bytes": stat.st_size, "modified_ns": stat.st_mtime_ns})


def _interrupt(dbapi_connection: Any) -> None:
    """Stop the statement running on a DBAPI connection (sqlite3, DuckDB, psycopg)."""
    for method in ("interrupt", "cancel"):
        stop = getattr(dbapi_connection, method, None)
        if callable(stop):
            with contextlib.suppress(Exception):  # a closed connection has nothing to stop
                stop()
            return


def from_config(name: str, table: SqlTable, *, corpus: Any, base_dir: Path) -> SqlSystem:
    """Registry factory for ``type = "sql"`` (keys: :class:`assay.systems.schema.SqlTable`).

    ``${VAR}`` in ``url`` and ``setup`` has been read from the environment; the URL's
    password is registered as a secret. A relative SQLite or DuckDB database file is
    found from ``base_dir`` (the folder of assay.toml). ``embedding_model`` takes the
    values of a vector system's ``model`` (``"endpoint:NAME"`` for a ``[models.NAME]`` server).
    """
    del corpus
    try:
        from sqlalchemy.engine import make_url

        password = make_url(table.url).password
    except Exception as exc:
        raise UsageError(f"[systems.{name}].url is not a SQLAlchemy URL: {exc}") from None
    if password:
        register_secret(str(password))
    encoder = None
    if table.embedding_model is not None:
        model = VectorTable(
            type="vector", model=table.embedding_model, config_path=table.config_path
        )
        encoder = encoder_for(name, model, base_dir)
    return SqlSystem(name, table.url, table, encoder=encoder, base_dir=base_dir)


def _file_relative_to(url: str, base_dir: Path | None) -> str:
    """A SQLite or DuckDB URL whose relative database file is taken from ``base_dir``."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database
    if base_dir is None or parsed.get_backend_name() not in ("sqlite", "duckdb"):
        return url
    if not database or database == ":memory:" or Path(database).is_absolute():
        return url
    resolved = parsed.set(database=str((Path(base_dir) / database).resolve()))
    return resolved.render_as_string(hide_password=False)
