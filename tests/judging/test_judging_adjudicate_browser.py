"""Adjudication and undo on the last card, through the page, in Debian's Chromium.

At a desktop width (1400) and a phone width (390): two assessors disagree, the
adjudicator sets the final grade with the page's own form (which Chromium
sends with ``Sec-Fetch-Site: same-origin``), and the same form posted from a
page of another site is refused. Every request to another host is answered
by the test (the foreign page) or aborted, and counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _server import CHROMIUM, LAUNCH_ARGS, Server, free_port

from assay.judging.store import JudgingStore

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="headless Chromium is not installed at /usr/bin/chromium "
        "(.ci/run installs it; locally: apt-get install -y chromium)",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

FOREIGN = "http://foreign.test/"


def _pool(path: Path) -> Path:
    rows = [("q1", "boiling point of water", d, t) for d, t in (("d1", "100 C"), ("d2", "0 C"))]
    lines = [
        json.dumps({"query_id": q, "query": text, "doc_id": d, "document": {"text": body}})
        for q, text, d, body in rows
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _ack(page) -> str:
    return page.eval_on_selector(
        "#card", "c => (c.querySelector('#ack') || {dataset: {}}).dataset.event || ''"
    )


def _press(page, key: str) -> None:
    """Press ``key``; wait until the server acknowledged it (a new event id on the card)."""
    before = _ack(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "b => { const a = document.querySelector('#ack'); return a && a.dataset.event !== b }",
        arg=before,
        timeout=15000,
    )


class _Guard:
    """Routes of one browser context: the server passes, the foreign page is served, the
    rest is aborted; every foreign request and page error is kept."""

    def __init__(self, server: Server, foreign_form: str) -> None:
        self.host = urlsplit(server.base).netloc
        self.foreign_form = foreign_form
        self.outside: list[str] = []
        self.errors: list[str] = []

    def route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).netloc == self.host:
            route.continue_()
        elif url == FOREIGN:
            route.fulfill(status=200, content_type="text/html", body=self.foreign_form)
        else:
            self.outside.append(url)
            route.abort()

    def context(self, browser, width: int):
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        ctx.route("**/*", self.route)
        return ctx

    def page(self, ctx, link: str):
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", lambda d: (self.errors.append(d.message), d.dismiss()))
        page.goto(link)
        return page


@pytest.mark.parametrize("width", [1400, 390])
def test_adjudicate_and_undo_last_card_in_chromium(tmp_path: Path, width: int) -> None:
    pool = _pool(tmp_path / "pool.jsonl")
    store_path = tmp_path / "judging.db"
    args = [str(pool), "--store", str(store_path), "--assessors", "alice,bob", "--overlap", "2"]
    server = Server([*args, "--adjudicators", "carol"], tmp_path, free_port()).start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                guard = _scenario(browser, server, width)
            finally:
                browser.close()
    finally:
        server.kill()
    assert guard.errors == [] and guard.outside == []
    store = JudgingStore(str(store_path))
    final = [e for e in store.events() if e.kind == "adjudicate"]
    assert [(e.assessor, e.value, e.reason) for e in final] == [("carol", "2", "split it")]
    alice = [(e.kind, e.value) for e in store.events("alice")]
    assert alice == [("grade", "1"), ("grade", "2"), ("undo", None), ("grade", "3")]
    server.log.seek(0)
    assert "Traceback" not in server.log.read()


def _scenario(browser, server: Server, width: int) -> _Guard:
    store = JudgingStore(str(Path(server.cwd) / "judging.db"))
    csrf = store.sign("csrf", "carol")  # a valid token: only the origin can stop the post
    d1 = next(p.id for p in store.pairs().values() if p.pair.doc_id == "d1")
    foreign_form = (
        f"<!doctype html><form method=post action='{server.base}/adjudicate'>"
        f"<input name=csrf value='{csrf}'><input name=pair value='{d1}'>"
        "<input name=grade value='0'><input name=reason value='forged'>"
        "<button id=go type=submit>go</button></form>"
    )
    guard = _Guard(server, foreign_form)
    alice = guard.page(guard.context(browser, width), server.links["alice"])
    _press(alice, "1")
    _press(alice, "2")
    assert alice.locator("#all-done").count() == 1
    _press(alice, "z")  # undo on the "all graded" card brings the last pair back
    assert alice.get_attribute("#document", "data-doc-id") == "d2"
    assert alice.inner_text("#current") == "none yet"
    _press(alice, "3")
    assert alice.locator("#all-done").count() == 1
    bob = guard.page(guard.context(browser, width), server.links["bob"])
    _press(bob, "3")
    _press(bob, "3")
    carol_ctx = guard.context(browser, width)
    carol = guard.page(carol_ctx, server.links["carol"])
    carol.click("text=agreement and adjudication")
    carol.wait_for_url(server.base + "/agreement")
    assert "Disagreements to settle (1)" in carol.content()
    assert "100 C" in carol.inner_text(f"#dispute-{d1}")  # the document, for the adjudicator
    form = carol.locator(f"#dispute-{d1} form")
    form.locator("select[name=grade]").select_option("2")
    form.locator("input[name=reason]").fill("split it")
    with carol.expect_navigation():
        form.locator("button[type=submit]").click()
    assert carol.url == server.base + "/agreement"
    assert "final <b>2</b> by carol: split it" in carol.content()
    assert "Disagreements to settle (0)" in carol.content()  # settled: out of the queue
    foreign = guard.page(carol_ctx, FOREIGN)
    with foreign.expect_navigation() as nav:
        foreign.click("#go")
    assert nav.value is not None and nav.value.status == 403
    assert "foreign origin" in foreign.inner_text("#denied")
    return guard
