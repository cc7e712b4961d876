"""Limits of the judging server: request body size, reason length, ids and origins.

:class:`BodyLimit` is a plain ASGI middleware placed in front of every route:
a request whose ``Content-Length`` is above :data:`MAX_BODY_BYTES` is refused
with 413 before a byte of its body is read (and before the login is checked);
a body sent without a length (chunked) is read up to the limit and refused as
soon as it passes it, so memory stays bounded either way. The body read is
handed to the application unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

#: Largest request body accepted (bytes): a form holds a token, a pair id, a
#: grade and a reason of at most :data:`MAX_REASON_CHARS` characters.
MAX_BODY_BYTES = 64 * 1024
#: Longest reason (characters) of a grade override or an adjudication.
MAX_REASON_CHARS = 2000
#: Largest pair id (the range of a 32-bit SQL ``INTEGER``, as PostgreSQL stores it).
MAX_ID = 2**31 - 1

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def parse_id(text: str | None) -> int | None:
    """A pair id from form or query text: ASCII digits only, 1 to :data:`MAX_ID`; else None.

    ``"²"`` and other Unicode digits, signs, spaces and numbers of thousands
    of digits are refused without converting them.
    """
    if not text or len(text) > len(str(MAX_ID)) or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if 1 <= value <= MAX_ID else None


def same_origin(headers: Any) -> bool:
    """True unless the browser says the request comes from another site.

    ``Sec-Fetch-Site`` (sent by current browsers) must be ``same-origin``;
    without it, an ``Origin`` must name this host (``Origin: null``, sent for
    requests whose origin the browser hides, is foreign). A request with
    neither header (not from a browser page) passes: the CSRF token still
    guards it.
    """
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = headers.get("origin")
    if origin is None:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc == headers.get("host")


async def _refuse(send: Send, status: int, text: str) -> None:
    body = f"{text}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                (b"cache-control", b"no-store"),
                (b"x-content-type-options", b"nosniff"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: refuse request bodies above ``limit`` bytes with 413 (see module)."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the declared length, then read at most ``limit`` bytes, then call the app."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = [v for k, v in scope.get("headers", []) if k.lower() == b"content-length"]
        if declared:
            text = declared[-1].strip()
            if len(declared) > 1 or not (text.isdigit() and len(text) <= 12):
                await _refuse(send, 400, "bad Content-Length")
                return
            if int(text) > self.limit:
                await _refuse(send, 413, f"request body too large (limit {self.limit} bytes)")
                return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _refuse(send, 413, f"request body too large (limit {self.limit} bytes)")
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect

        await self.app(scope, replay, send)
