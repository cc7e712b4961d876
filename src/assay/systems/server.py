"""Expose any :class:`~assay.systems.base.System` over HTTP (FastAPI).

``GET /search?q=...&k=10`` answers ``{"hits": [{"id": ..., "score": ...}]}``;
``GET /health`` answers ``{"status": "ready", "system": name, "config_hash": ...}``
once the system is prepared (its index built), and 503 with ``"starting"``
before, so a load balancer or a CI job waits for readiness, not liveness.

Queries run concurrently: up to ``workers`` at a time in a thread pool (a
system that is not thread-safe sets ``thread_safe = False`` and is served one
query at a time). At most ``max_queue`` requests wait for a worker; beyond
that, and while the index is being built, ``/search`` answers 503 with
``Retry-After`` instead of piling up. Query text is capped at
``max_query_chars``. A failed system call answers 502 with the (redacted)
reason. :func:`serve_in_thread` runs an app on a loopback port in a background
thread (for notebooks, tests and benchmarks); ``assay serve`` runs it in the
foreground.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least
from assay.core.redact import redact_text
from assay.systems.base import System, SystemError_, config_hash

if TYPE_CHECKING:
    from fastapi import FastAPI

MAX_K = 10_000
#: Queries answered at once (threads), requests allowed to wait, longest query text.
DEFAULT_WORKERS = 8
DEFAULT_MAX_QUEUE = 64
MAX_QUERY_CHARS = 10_000


class _Gate:
    """Admission control: ``workers`` at a time, ``max_queue`` waiting, the rest refused."""

    def __init__(self, workers: int, max_queue: int) -> None:
        self._slots = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self._waiting = 0
        self._max_queue = max_queue

    @contextlib.contextmanager
    def admit(self) -> Iterator[bool]:
        """Yield True once a worker slot is held; False when the queue is full."""
        with self._lock:
            full = self._waiting >= self._max_queue
            if not full:
                self._waiting += 1
        if full:
            yield False
            return
        try:
            self._slots.acquire()
        finally:
            with self._lock:
                self._waiting -= 1
        try:
            yield True
        finally:
            self._slots.release()


class _Readiness:
    """Prepares the system (index building) in the background; says when it is ready."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.ready = threading.Event()
        self.error: str | None = None
        prepare = getattr(system, "prepare", None)
        if not callable(prepare):
            self.ready.set()
            return
        threading.Thread(target=self._prepare, args=(prepare,), daemon=True).start()

    def _prepare(self, prepare: Any) -> None:
        try:
            prepare()
        except Exception as exc:  # reported by /health; /search keeps answering 503
            self.error = redact_text(f"{type(exc).__name__}: {exc}")
            return
        self.ready.set()


def create_app(
    system: System,
    *,
    serialize: bool | None = None,
    workers: int = DEFAULT_WORKERS,
    max_queue: int = DEFAULT_MAX_QUEUE,
    max_query_chars: int = MAX_QUERY_CHARS,
) -> FastAPI:
    """A FastAPI app answering ``/search`` and ``/health`` for ``system``.

    ``serialize`` runs one query at a time (default: when the system says
    ``thread_safe = False``); otherwise ``workers`` at once. See the module
    docstring for readiness, the queue bound and the query-size cap.
    """
    from fastapi import FastAPI, HTTPException, Query
    from fastapi.responses import JSONResponse

    at_least("workers", workers)
    at_least("max_queue", max_queue, 0)
    at_least("max_query_chars", max_query_chars)
    if serialize is None:
        serialize = getattr(system, "thread_safe", True) is False
    gate = _Gate(1 if serialize else workers, max_queue)
    readiness = _Readiness(system)
    app = FastAPI(
        title=f"assay: {system.name}",
        description="A system under test, exposed by `assay serve`.",
    )
    identity = {"system": system.name, "config_hash": config_hash(system.config)}

    def busy(reason: str) -> HTTPException:
        return HTTPException(status_code=503, detail=reason, headers={"Retry-After": "1"})

    @app.get("/health")
    def get_health() -> Any:
        """Readiness: 200 ``ready`` once the index is built, 503 ``starting`` (or ``failed``)."""
        if readiness.ready.is_set():
            return {"status": "ready", **identity}
        status = "failed" if readiness.error else "starting"
        body = {"status": status, **identity}
        if readiness.error:
            body["error"] = readiness.error
        return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})

    @app.get("/search")
    def get_search(
        q: str = Query(..., min_length=1, max_length=max_query_chars, description="query text"),
        k: int = Query(10, ge=1, le=MAX_K, description="how many hits to return"),
    ) -> dict[str, list[dict[str, Any]]]:
        """Run one query; a failed system call answers 502 with the (redacted) reason."""
        if not readiness.ready.is_set():
            raise busy(readiness.error or "the index is still being built")
        with gate.admit() as admitted:
            if not admitted:
                raise busy(f"more than {max_queue} requests are waiting; retry later")
            try:
                hits = system.search(q, k)
            except SystemError_ as exc:
                raise HTTPException(status_code=502, detail=redact_text(str(exc))) from None
        return {
            "hits": [
                {"id": hit.doc_id, "score": None if hit.score is None else float(hit.score)}
                for hit in hits[:k]
            ]
        }

    return app


@contextlib.contextmanager
def serve_in_thread(
    app: FastAPI,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    log_level: str = "warning",
    limit_concurrency: int | None = None,
) -> Iterator[str]:
    """Run ``app`` with uvicorn in a daemon thread; yield its base URL, stop on exit.

    ``port=0`` picks a free port. ``limit_concurrency`` caps open connections
    (uvicorn answers 503 beyond it).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    import uvicorn

    # uvicorn installs signal handlers only in the main thread, so this is safe.
    config = uvicorn.Config(
        app,
        log_level=log_level,
        lifespan="off",
        timeout_graceful_shutdown=2,
        limit_concurrency=limit_concurrency,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start within 10 s")
            time.sleep(0.01)
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
