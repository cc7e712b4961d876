"""One outbound HTTP request within a deadline (HTTP systems, model endpoints).

:func:`exchange` sends one request and follows redirects itself, so that a
redirect to another origin drops every configured header (or is refused, by
configuration); the whole exchange, headers and body included, must finish
before a deadline, and a body larger than a cap is refused while it streams.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urlsplit

from assay.core.errors import SystemCallError
from assay.core.redact import redact_text
from assay.core.retry import Transient, parse_retry_after

MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
#: What to do when a redirect leads to another origin (scheme, host, port).
CROSS_ORIGIN = ("drop-headers", "refuse")


class TransientSystemError(SystemCallError, Transient):
    """A failed call worth another attempt: timeout, connection error, 5xx, 408, 429."""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def exchange(
    client: Any,
    method: str,
    url: str,
    headers: dict[str, str],
    body: Any,
    deadline: float,
    max_bytes: int,
    where: str,
    timeout: float,
) -> tuple[int, str | None, float | None, bytes]:
    """One HTTP exchange ended by ``deadline`` (total time): status, location, wait, body.

    The exchange runs in a daemon thread so that a server dripping its headers
    cannot hold the caller past the deadline; the body is read in chunks,
    checked against the deadline and ``max_bytes`` after each one.
    """
    box: dict[str, Any] = {}
    stop = threading.Event()

    def work() -> None:
        try:
            box["value"] = read_capped(
                client, method, url, headers, body, deadline, max_bytes, stop
            )
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=work, name="assay-http", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()) + 0.05)
    if worker.is_alive():
        stop.set()
        raise TransientSystemError(f"{where}: no complete answer within timeout {timeout:g} s")
    if "error" in box:
        raise transport_error(box["error"], where, timeout)
    return box["value"]


def read_capped(
    client: Any,
    method: str,
    url: str,
    headers: dict[str, str],
    body: Any,
    deadline: float,
    max_bytes: int,
    stop: threading.Event,
) -> tuple[int, str | None, float | None, bytes]:
    import httpx

    remaining = max(0.001, deadline - time.monotonic())
    with client.stream(
        method, url, headers=headers, json=body, timeout=httpx.Timeout(remaining)
    ) as response:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge(int(declared))
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(size)
            if stop.is_set() or time.monotonic() > deadline:
                raise Late
            chunks.append(chunk)
        return (
            response.status_code,
            response.headers.get("location"),
            parse_retry_after(response.headers.get("retry-after")),
            b"".join(chunks),
        )


class TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class Late(Exception):
    pass


def transport_error(exc: BaseException, where: str, timeout: float) -> Exception:
    import httpx

    if isinstance(exc, TooLarge):
        return SystemCallError(
            f"{where}: response larger than max_response_bytes ({exc.size:,} bytes read or "
            "declared); raise max_response_bytes if that is expected"
        )
    if isinstance(exc, Late | httpx.TimeoutException):
        return TransientSystemError(f"{where}: no complete answer within timeout {timeout:g} s")
    if isinstance(exc, httpx.TransportError):
        return TransientSystemError(
            f"{where}: connection failed ({type(exc).__name__}: {redact_text(str(exc))})"
        )
    if isinstance(exc, Exception):
        return SystemCallError(f"{where}: {type(exc).__name__}: {redact_text(str(exc))}")
    return RuntimeError(str(exc))


# -- argument checks ---------------------------------------------------------
