"""The judging page over HTTP: logins, CSRF, escaping, hidden grades, and a SIGKILLed server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assay.judging.serve import prepare
from assay.judging.store import JudgingStore

HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)"><b onclick="x()">b</b>'


def _pool(path: Path) -> Path:
    rows = [
        ("q1", "first <i>query</i>", "d1", {"title": "T & C", "text": HOSTILE}),
        ("q1", "first <i>query</i>", "d2", {"text": "plain"}),
        ("q2", "second", "d3", {"text": "third"}),
    ]
    lines = [
        json.dumps(
            {
                "query_id": q,
                "query": t,
                "doc_id": d,
                "runs": [{"run": "runA-hidden", "rank": 4}],
                "notes": {"language": "de", "query_class": "<b>cls</b>"},
                "document": doc,
            }
        )
        for q, t, d, doc in rows
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def site(tmp_path: Path):
    from fastapi.testclient import TestClient

    app, links = prepare(
        _pool(tmp_path / "pool.jsonl"),
        str(tmp_path / "j.db"),
        assessors=["alice", "bob"],
        overlap=2,
        adjudicators=["carol"],
        base_url="http://testserver",
    )

    def client(name: str | None) -> TestClient:
        c = TestClient(app)
        if name is not None:
            r = c.get(links[name].removeprefix("http://testserver"))
            assert r.status_code == 200
        return c

    return client, links, JudgingStore(str(tmp_path / "j.db"))


def _form(html: str) -> dict[str, str]:
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    pair = re.search(r'name="pair" value="(\d+)"', html)
    return {"csrf": csrf, "pair": pair.group(1) if pair else ""}


HX = {"HX-Request": "true"}


def test_documents_are_escaped_and_run_ranks_hidden(site) -> None:
    client, _, _ = site
    r = client("alice").get("/")
    html = r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in html
    assert "<img" not in html and "onclick" not in html.replace("onclick=&#34;", "")
    assert "first &lt;i&gt;query&lt;/i&gt;" in html and "&lt;b&gt;cls&lt;/b&gt;" in html
    assert "T &amp; C" in html
    assert "runA-hidden" not in html and "rank" not in html.lower().replace("unrateable", "")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-frame-options"] == "DENY"


def test_logins_and_csrf_guard_every_form(site) -> None:
    client, links, store = site
    anon = client(None)
    assert anon.get("/").status_code == 401
    assert anon.get("/login?as=alice&token=" + "0" * 32).status_code == 403
    bob_token = links["bob"].split("token=")[1]
    assert anon.get(f"/login?as=alice&token={bob_token}").status_code == 403
    alice = client("alice")
    form = _form(alice.get("/").text)
    for bad in ({**form, "csrf": "x"}, {k: v for k, v in form.items() if k != "csrf"}):
        assert alice.post("/act", data={**bad, "value": "2"}, headers=HX).status_code == 403
    assert alice.post("/undo", data={"csrf": "nope"}, headers=HX).status_code == 403
    foreign = {**HX, "Origin": "http://evil.example"}
    assert alice.post("/act", data={**form, "value": "2"}, headers=foreign).status_code == 403
    assert anon.post("/act", data={**form, "value": "2"}).status_code == 403
    carol = client("carol")
    carol_form = {"csrf": _form(carol.get("/").text)["csrf"], "pair": form["pair"]}
    assert carol.post("/adjudicate", data={**carol_form, "grade": "2"}).status_code == 400
    assert store.events() == []  # nothing got through
    ok = alice.post("/act", data={**form, "value": "2"}, headers=HX)
    assert ok.status_code == 200 and 'id="ack"' in ok.text
    plain = alice.post("/act", data={**_form(ok.text), "value": "1"}, follow_redirects=False)
    assert plain.status_code == 303  # works without JavaScript too
    assert [e.value for e in store.events()] == ["2", "1"]


def test_no_page_reveals_another_assessors_grade(site) -> None:
    client, _, store = site
    alice, bob, carol = client("alice"), client("bob"), client("carol")
    form = _form(bob.get("/").text)
    bob.post("/act", data={**form, "value": "3"}, headers=HX)
    page = alice.get("/").text
    assert _form(page)["pair"] == form["pair"]
    assert re.search(r'id="current">none yet<', page)
    assert alice.get("/agreement").status_code == 403  # assessors never see others' grades
    agreement = carol.get("/agreement").text
    assert "Disagreements to settle (0)" in agreement  # alice has not graded: nothing yet
    alice.post("/act", data={**_form(page), "value": "1"}, headers=HX)
    agreement = carol.get("/agreement").text
    assert "Disagreements to settle (1)" in agreement and "alice: <b>1</b>" in agreement
    data = {"csrf": _form(agreement)["csrf"], "pair": form["pair"], "grade": "3", "reason": "ok"}
    assert carol.post("/adjudicate", data=data, follow_redirects=False).status_code == 303
    assert store.events()[-1].kind == "adjudicate"
    agreement = carol.get("/agreement").text  # a settled dispute leaves the queue
    assert "Disagreements to settle (0)" in agreement and "Settled (1)" in agreement
    assert "final <b>3</b> by carol: ok" in agreement


def test_guidelines_are_rendered_markdown_and_sanitised() -> None:
    from assay.judging.web import render_guidelines

    html = render_guidelines(
        "# Rules\n\n- **3**: answers fully\n\n<script>alert(1)</script>\n\n"
        "[x](javascript:alert(1)) ![i](https://evil.example/x.png) <https://evil.example>\n"
    )
    assert "<h1>Rules</h1>" in html and "<strong>3</strong>" in html
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<a " not in html and "<img" not in html and "href" not in html


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path):
    """A SQLite path, or a fresh PostgreSQL schema when ASSAY_TEST_PG_URL is set."""
    if request.param == "sqlite":
        yield str(tmp_path / "j.db")
        return
    from helpers_pg import pg_schema_url

    yield from pg_schema_url("assay_j")


def test_a_killed_server_keeps_every_acknowledged_grade(tmp_path: Path, store_url: str) -> None:
    import httpx
    from _server import Server, free_port

    pool = _pool(tmp_path / "pool.jsonl")
    args = [str(pool), "--store", store_url, "--assessors", "alice"]
    server = Server(args, tmp_path, free_port()).start()
    acked = []
    try:
        with httpx.Client(base_url=server.base, timeout=20) as c:
            c.get(server.links["alice"].removeprefix(server.base))
            html = c.get("/").text
            for value in ("2", "u"):
                r = c.post("/act", data={**_form(html), "value": value}, headers=HX)
                assert r.status_code == 200
                acked.append(int(re.search(r'data-event="(\d+)"', r.text).group(1)))
                html = r.text
            links = dict(server.links)
            server.kill()
            server.start()
            assert server.links == links  # login links survive a restart
            html = c.get("/").text  # the same cookie still works after the restart
            assert 'data-done="2"' in html
    finally:
        server.kill()
    events = JudgingStore(store_url).events()
    assert [e.id for e in events] == acked and [e.value for e in events] == ["2", "u"]


def test_an_assessor_lists_and_revisits_their_own_grades(site) -> None:
    client, _, _ = site
    alice = client("alice")
    first = _form(alice.get("/").text)
    alice.post("/act", data={**first, "value": "2"}, headers=HX)
    mine = alice.get("/mine").text
    assert f'href="/?pair={first["pair"]}"' in mine and "<td>2</td>" in mine
    again = alice.get(f"/?pair={first['pair']}").text  # the card again, with the grade
    assert _form(again)["pair"] == first["pair"]
    alice.post("/act", data={**_form(again), "value": "0"}, headers=HX)
    assert "<td>0</td>" in alice.get("/mine").text
    assert client(None).get("/mine").status_code == 401


def test_a_querys_pairs_come_together(tmp_path: Path) -> None:
    """A pool that interleaves queries is judged query by query."""
    from assay.judging.pool import PoolPair
    from assay.judging.store import JudgingStore

    pairs = [
        PoolPair(query_id=q, query=f"query {q}", doc_id=f"{q}-{d}", runs={"r": d})
        for d in (1, 2)
        for q in ("a", "b")
    ]  # a-1, b-1, a-2, b-2
    store = JudgingStore(str(tmp_path / "j.db"))
    store.setup(pairs, ["alice"], 1)
    seen = []
    while (pid := store.next_pair("alice")) is not None:
        seen.append(store.pairs([pid])[pid].pair.doc_id)
        store.act("alice", pid, "1")
    assert seen == ["a-1", "a-2", "b-1", "b-2"]
