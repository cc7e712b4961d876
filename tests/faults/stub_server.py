"""A misbehaving HTTP server for fault tests: 127.0.0.1 only, every loop bounded.

Paths: ``/ok`` (hits), ``/echo500`` (500 echoing body, headers and request line,
unless the query starts with "ok"),
``/status/N``, ``/retry-after/N`` (429 with ``Retry-After: N`` once, then hits),
``/redirect?to=URL`` (302), ``/drip`` (body one byte every 0.2 s, at most 200),
``/driphead`` (the status line one byte every 0.2 s), ``/huge?mb=N`` (N MB of
JSON, chunked), ``/declared`` (a 2 GB Content-Length, no body).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class Stub:
    """What the server saw."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.lock = threading.Lock()


def _hits(q: str) -> bytes:
    return json.dumps({"hits": [{"id": "d" + q.replace(" ", "_"), "score": 1.0}]}).encode()


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, body: bytes, extra: dict[str, str] | None = None) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.body = self.rfile.read(min(length, 1 << 20)).decode("utf-8", "replace")
            self.do_GET()

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            args = {k: v[0] for k, v in parse_qs(parts.query).items()}
            path = parts.path
            key = path.split("/")[1]
            with stub.lock:
                stub.calls[key] += 1
                stub.headers.append(dict(self.headers.items()))
                stub.times.append(time.monotonic())
                count = stub.calls[key]
            q = args.get("q", "x")
            with suppress(BrokenPipeError, ConnectionResetError):
                self._route(path, args, q, count)

        def _route(self, path: str, args: dict[str, str], q: str, count: int) -> None:
            if path == "/ok":
                return self._send(200, _hits(q))
            if path == "/echo500":
                if q.startswith("ok"):
                    return self._send(200, _hits(q))
                sent = {k: v for k, v in self.headers.items() if k.lower().startswith(("x-", "au"))}
                echo = f"{getattr(self, 'body', '')} {sent} {self.requestline}"
                return self._send(500, json.dumps({"error": echo}).encode())
            if path.startswith("/status/"):
                return self._send(int(path.split("/")[2]), b'{"error": "no"}')
            if path.startswith("/retry-after/"):
                if count == 1:
                    return self._send(429, b"{}", {"Retry-After": path.split("/")[2]})
                return self._send(200, _hits(q))
            if path == "/redirect":
                self.send_response(302)
                self.send_header("Location", args["to"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if path == "/drip":
                self.send_response(200)
                self.send_header("Content-Length", "200")
                self.end_headers()
                for _ in range(200):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
                return None
            if path == "/driphead":
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.2)
                self.close_connection = True
                return None
            if path == "/huge":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b" " * 65536
                for _ in range(int(args.get("mb", "1")) * 16):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
                return None
            if path == "/declared":
                self.send_response(200)
                self.send_header("Content-Length", str(2 * 1024**3))
                self.end_headers()
                self.close_connection = True
                return None
            return self._send(404, b"{}")

    return Handler


@contextmanager
def stub_server() -> Iterator[tuple[str, Stub]]:
    """Serve on 127.0.0.1 in a daemon thread; yield the base URL and the record."""
    stub = Stub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", stub
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A local port nobody listens on."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
