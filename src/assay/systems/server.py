"""Expose any :class:`~assay.systems.base.System` over HTTP (FastAPI).

``GET /search?q=...&k=10`` answers ``{"hits": [{"id": ..., "score": ...}]}``;
``GET /health`` answers ``{"status": "ok", "system": name, "config_hash": ...}``.
:func:`serve_in_thread` runs an app on a loopback port in a background thread
(for notebooks and tests); ``assay serve`` runs it in the foreground.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assay.redact import redact_text
from assay.systems.base import System, SystemError_, config_hash

if TYPE_CHECKING:
    from fastapi import FastAPI

MAX_K = 10_000


def create_app(system: System, *, serialize: bool = True) -> FastAPI:
    """A FastAPI app answering ``/search`` and ``/health`` for ``system``.

    With ``serialize`` (the default) one query runs at a time, so systems that
    are not thread-safe can be served as they are.
    """
    from fastapi import FastAPI, HTTPException, Query

    app = FastAPI(
        title=f"assay: {system.name}",
        description="A system under test, exposed by `assay serve`.",
    )
    lock = threading.Lock() if serialize else contextlib.nullcontext()
    health = {"status": "ok", "system": system.name, "config_hash": config_hash(system.config)}

    @app.get("/health")
    def get_health() -> dict[str, str]:
        """Liveness and identity of the served system."""
        return dict(health)

    @app.get("/search")
    def get_search(
        q: str = Query(..., min_length=1, description="the query text"),
        k: int = Query(10, ge=1, le=MAX_K, description="how many hits to return"),
    ) -> dict[str, list[dict[str, Any]]]:
        """Run one query; a failed system call answers 502 with the reason."""
        try:
            with lock:
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
    app: FastAPI, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"
) -> Iterator[str]:
    """Run ``app`` with uvicorn in a daemon thread; yield its base URL, stop on exit.

    ``port=0`` picks a free port.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    import uvicorn

    # uvicorn installs signal handlers only in the main thread, so this is safe.
    config = uvicorn.Config(app, log_level=log_level, lifespan="off", timeout_graceful_shutdown=2)
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
