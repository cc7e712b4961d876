"""The judging server under hostile requests: refused with 4xx, never a 500, never a traceback.

A real ``assay judge serve`` (uvicorn, in a subprocess on a loopback port)
gets oversized bodies (declared and streamed without a length, neither of them
ever sent whole), Unicode and huge pair numbers, unknown pairs, long reasons,
bad tokens and foreign origins. Its whole log is then searched for a traceback.
"""

from __future__ import annotations

import importlib.util
import json
import re
import socket
from pathlib import Path

import pytest

from assay.judging.limits import MAX_BODY_BYTES, MAX_REASON_CHARS
from assay.judging.store import JudgingStore

_spec = importlib.util.spec_from_file_location(
    "judging_server", Path(__file__).parents[1] / "judging" / "_server.py"
)
_server = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_server)  # the judging tests' server launcher

pytestmark = pytest.mark.timeout(300)
HX = {"HX-Request": "true"}


def _pool(path: Path) -> Path:
    lines = [
        json.dumps({"query_id": "q1", "query": "water", "doc_id": d, "document": {"text": d}})
        for d in ("d1", "d2")
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _raw(port: int, head: bytes, body: bytes = b"") -> int:
    """Send ``head`` and ``body`` (never more), read the answer; its status code.

    The socket times out after 20 s: a server that waited for the rest of a
    body it was promised would fail the test instead of answering.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(head + body)
        got = b""
        while b"\r\n" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", got)
    assert match, got[:200]
    return int(match.group(1))


def _post_head(port: int, path: str, extra: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\n{extra}\r\n"
    ).encode()


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


@pytest.fixture
def server(tmp_path: Path):
    pool = _pool(tmp_path / "pool.jsonl")
    args = [str(pool), "--store", str(tmp_path / "j.db"), "--assessors", "alice,bob"]
    args += ["--overlap", "2", "--adjudicators", "carol", "--log-level", "info"]
    srv = _server.Server(args, tmp_path, _server.free_port()).start()
    yield srv
    srv.kill()


def test_oversized_bodies_are_refused_before_they_are_read(server) -> None:
    port = server.port
    huge = _post_head(port, "/act", "Content-Length: 314572800\r\n")
    assert _raw(port, huge, b"csrf=x&") == 413  # 300 MB promised, 7 bytes sent, no login
    assert _raw(port, _post_head(port, "/adjudicate", "Content-Length: 99999999999999\r\n")) in (
        400,
        413,
    )
    # without a length: refused once the limit is passed, the body's end never sent
    chunk = b"a" * 16384
    streamed = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8))
    assert len(streamed) > MAX_BODY_BYTES
    assert _raw(port, _post_head(port, "/act", "Transfer-Encoding: chunked\r\n"), streamed) == 413
    # a small body without a length reaches the routes (and fails the login check)
    small = b"9\r\ncsrf=nope\r\n0\r\n\r\n"
    assert _raw(port, _post_head(port, "/act", "Transfer-Encoding: chunked\r\n"), small) == 403
    for bad in ("abc", "-1", "1e9"):
        assert _raw(port, _post_head(port, "/act", f"Content-Length: {bad}\r\n")) == 400


def test_hostile_requests_get_4xx_and_no_traceback(server, tmp_path: Path) -> None:
    import httpx

    statuses: list[tuple[str, int]] = []
    with (
        httpx.Client(base_url=server.base, timeout=30) as alice,
        httpx.Client(base_url=server.base, timeout=30) as carol,
        httpx.Client(base_url=server.base, timeout=30) as anon,
    ):
        alice.get(server.links["alice"].removeprefix(server.base))
        carol.get(server.links["carol"].removeprefix(server.base))
        a_csrf, c_csrf = _csrf(alice.get("/").text), _csrf(carol.get("/").text)
        store = JudgingStore(str(tmp_path / "j.db"))
        pid = str(min(store.pairs()))
        bad_ids = {"²": 400, "9" * 5000: 400, "9" * 30: 400, "-1": 400, " 1": 400, "0": 400}
        bad_ids |= {"1\x00": 400, "٣": 400, "999999": 404, "": 400}

        def check(name: str, response: httpx.Response, *expected: int) -> None:
            statuses.append((name, response.status_code))
            assert response.status_code in expected, (name, response.text[:300])

        for text, code in bad_ids.items():
            if text:
                check(f"page {text[:8]}", alice.get("/", params={"pair": text}), code)
            form = {"csrf": a_csrf, "pair": text, "value": "2"}
            check(f"act {text[:8]}", alice.post("/act", data=form, headers=HX), code)
            form = {"csrf": c_csrf, "pair": text, "grade": "2", "reason": "r"}
            check(f"adjudicate {text[:8]}", carol.post("/adjudicate", data=form), code)
        long_reason = {"csrf": c_csrf, "pair": pid, "grade": "2"}
        check(
            "reason 20 MB",
            carol.post("/adjudicate", data={**long_reason, "reason": "r" * 20_000_000}),
            413,
        )
        over = "é" * (MAX_REASON_CHARS + 1)
        check(
            "reason over cap", carol.post("/adjudicate", data={**long_reason, "reason": over}), 400
        )
        act = {"csrf": a_csrf, "pair": pid, "value": "2", "reason": over}
        check("act reason over cap", alice.post("/act", data=act, headers=HX), 200)
        check("login ²", anon.get("/login", params={"as": "alice", "token": "²"}), 403)
        check("login bad name", anon.get("/login", params={"as": "é" * 9, "token": "x"}), 403)
        check("cookie ²", anon.get("/", headers={"Cookie": "assay_judge=alice:²".encode()}), 401)
        check("csrf ²", alice.post("/act", data={"csrf": "²", "pair": pid, "value": "1"}), 403)
        for origin in ("http://[::1", "null", "http://evil.example", "\x7f"):
            headers = {**HX, "Origin": origin}
            check(
                f"origin {origin}", alice.post("/act", data={"csrf": a_csrf}, headers=headers), 403
            )
        for site in ("cross-site", "same-site", "none"):
            headers = {**HX, "Sec-Fetch-Site": site}
            check(f"site {site}", alice.post("/act", data={"csrf": a_csrf}, headers=headers), 403)
        check("put", alice.put("/act", data={"csrf": a_csrf}), 405)
        check("unknown path", alice.get("/../../etc/passwd"), 404)
        check("static traversal", alice.get("/static/%2e%2e/web.py"), 404)
        fine = {**HX, "Origin": "null", "Sec-Fetch-Site": "same-origin"}
        form = {"csrf": a_csrf, "pair": pid, "value": "3"}
        check("same-origin with Origin null", alice.post("/act", data=form, headers=fine), 200)
        adjudicated = {**long_reason, "reason": "r" * MAX_REASON_CHARS}
        check("adjudicate at the cap", carol.post("/adjudicate", data=adjudicated), 303)
    events = store.events()
    assert [(e.assessor, e.kind, e.value) for e in events] == [
        ("alice", "grade", "3"),
        ("carol", "adjudicate", "2"),
    ]
    assert all(len(e.reason or "") <= MAX_REASON_CHARS for e in events)
    assert not [s for s in statuses if s[1] >= 500]
    server.log.seek(0)
    log = server.log.read()
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]
