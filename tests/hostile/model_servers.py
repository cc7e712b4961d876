"""Misbehaving model endpoints for the hostile tests: drip, flood, fail.

:class:`BadModelServer` listens on 127.0.0.1 (a free port) and answers every
``POST`` the way its ``mode`` says:

* ``drip``: a 200 with a large ``Content-Length``, then one body byte every
  ``pause`` seconds;
* ``drip-headers``: the status line, then one header byte every ``pause`` seconds;
* ``flood``: a 200 without a length, then 64 KiB chunks until the client hangs up;
* ``status:CODE``: that status with a short JSON body;
* ``not-json``: a 200 with plain text; ``gateway``: a 502 HTML gateway page;
  ``gateway-200``: the same HTML page with status 200.

Every loop is bounded (a byte or chunk budget) and ends when the test stops
the server; the server counts requests and bytes sent, so tests count rather
than time. :func:`closed_port` gives a port nothing listens on.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import time

GATEWAY_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway"
    b"</h1></center><hr><center>nginx</center></body></html>"
)
#: Most bytes a drip sends, and most bytes a flood sends (the loops' bounds).
DRIP_BYTES = 120
FLOOD_BYTES = 256 * 1024 * 1024
CHUNK = 64 * 1024


class BadModelServer:
    """A threaded TCP server speaking just enough HTTP to misbehave."""

    def __init__(self, mode: str, pause: float = 0.5) -> None:
        self.mode = mode
        self.pause = pause
        self.stop = threading.Event()
        self.requests = 0
        self.sent = 0
        self.dripped = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer._handle(self.request)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> BadModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    # ------------------------------------------------------------------ handling
    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            _read_request(conn)
        except OSError:
            return
        with self.lock:
            self.requests += 1
        with contextlib.suppress(OSError):  # the client hung up: what a bounded client does
            self._answer(conn)

    def _send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        with self.lock:
            self.sent += len(data)

    def _answer(self, conn: socket.socket) -> None:
        mode = self.mode
        if mode == "drip":
            self._send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            self._send(conn, b"Content-Length: 100000\r\n\r\n")
            self._drip(conn, b'{"choices": [' + b" " * DRIP_BYTES)
        elif mode == "drip-headers":
            self._send(conn, b"HTTP/1.1 200 OK\r\n")
            self._drip(conn, b"X-Slow: " + b"a" * DRIP_BYTES)
        elif mode == "flood":
            self._send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            self._send(conn, b"Connection: close\r\n\r\n")
            chunk = b" " * CHUNK
            for _ in range(FLOOD_BYTES // CHUNK):
                if self.stop.is_set():
                    break
                self._send(conn, chunk)
        elif mode.startswith("status:"):
            code = int(mode.split(":")[1])
            self._whole(conn, code, "application/json", b'{"error": {"message": "no"}}')
        elif mode == "not-json":
            self._whole(conn, 200, "text/plain", b"the model is resting")
        elif mode == "gateway":
            self._whole(conn, 502, "text/html", GATEWAY_PAGE)
        elif mode == "gateway-200":
            self._whole(conn, 200, "text/html", GATEWAY_PAGE)
        else:  # pragma: no cover - a typo in a test
            raise ValueError(mode)

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data)):
            if self.stop.wait(self.pause):
                return
            self._send(conn, data[i : i + 1])
            with self.lock:
                self.dripped += 1

    def _whole(self, conn: socket.socket, code: int, kind: str, body: bytes) -> None:
        head = (
            f"HTTP/1.1 {code} X\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        self._send(conn, head.encode() + body)


def _read_request(conn: socket.socket) -> bytes:
    """The request's head and body (by Content-Length), at most 1 MiB."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 20:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = min(int(line.split(b":")[1]), 1 << 20)
    deadline = time.monotonic() + 5
    while len(body) < length and time.monotonic() < deadline:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + body


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
