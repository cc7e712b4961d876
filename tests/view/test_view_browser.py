"""``assay view`` in Debian's Chromium at a desktop (1400 px) and a phone (390 px) width.

One server (uvicorn on a free loopback port, stopped by the fixture) and one
browser serve every test of the module. Each page is checked for what its
reader came for (documents with grades, both ranked lists, a cell's output
and reasons, history linking to a result), for horizontal overflow
(``scrollWidth <= innerWidth``), for a label on every control, and for
requests: every request to another host is aborted and counted, and none is
allowed. The file ``assay report -o x.html`` writes holds the same content as
the served page.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _viewdata import make

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Chromium is not at /usr/bin/chromium"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
WIDTHS = (1400, 390)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return make(tmp_path_factory.mktemp("view"))


@pytest.fixture(scope="module")
def server(data: dict):
    import uvicorn

    from assay.view import make_app

    app = make_app(
        list(data["files"].values()),
        store=data["store"],
        corpus=data["corpus"],
        id_field=data["id_field"],
        allowed_hosts=["127.0.0.1"],
    )
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):  # at most ~20 s
        if srv.started:
            break
        time.sleep(0.1)
    assert srv.started, "the view server did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


class _Guard:
    """Aborts and counts every request to another host; collects page errors."""

    def __init__(self, base: str) -> None:
        self.host = urlsplit(base).netloc
        self.outside: list[str] = []
        self.errors: list[str] = []

    def route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).netloc == self.host or url.startswith(("data:", "blob:", "file:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def _context(browser, base: str, width: int):
    guard = _Guard(base)
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.route("**/*", guard.route)
    p = context.new_page()
    p.on("pageerror", lambda exc: guard.errors.append(str(exc)))
    p.base, p.guard = base, guard
    return context, p


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"{w}px")
def shared_page(request, browser, server):
    """One context per width for the module (plotly.js is fetched and compiled once)."""
    context, p = _context(browser, server, request.param)
    yield p
    context.close()


@pytest.fixture
def page(shared_page):
    """The width's page; after each test: no request left the host, no script failed."""
    yield shared_page
    guard = shared_page.guard
    assert guard.outside == [], guard.outside
    assert guard.errors == [], guard.errors


def _open(page, path: str) -> None:
    page.goto(page.base + path)
    page.wait_for_load_state("load")
    _fits(page)


#: Every element with its own text: its colour against the first opaque background behind
#: it; those under WCAG AA (4.5:1, 3:1 for large text) are returned. Charts' SVG is left out.
CONTRAST = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => { const v = c.slice(0, 3).map(x => { x /= 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const bg = e => { for (; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) { return c; } }
    return [255, 255, 255]; };
  const bad = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, script, style, .skip') || !e.offsetParent) { continue; }
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) { continue; }
    const st = getComputedStyle(e), a = lum(rgb(st.color)), b = lum(bg(e));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const px = parseFloat(st.fontSize);
    const large = px >= 24 || (px >= 18.66 && Number(st.fontWeight) >= 700);
    if (!(ratio >= (large ? 3 : 4.5))) { bad.push(e.tagName + '.' + e.className + ' ' + ratio); }
  }
  return bad;
}"""


def _fits(page) -> None:
    """No horizontal scroll outside scrollable tables; every control has a label; text
    meets WCAG AA contrast."""
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (page.url, width, inner)
    unlabelled = page.evaluate(
        "[...document.querySelectorAll('input, select, textarea')]"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))"
        ".map(e => e.id || e.name)"
    )
    assert unlabelled == [], unlabelled
    assert page.evaluate("document.documentElement.lang") == "en"
    low = page.evaluate(CONTRAST)
    assert low == [], low[:10]


def test_home_lists_every_result_and_filters(page, data) -> None:
    _open(page, "/")
    rows = page.locator("#results tbody tr")
    assert rows.count() == 3 + 5  # three files, five stored results
    assert page.locator("#results >> text=failed").count() >= 1  # the gate's verdict
    page.select_option("#f-kind", "matrix")
    sync_api.expect(rows).to_have_count(1)  # htmx swapped the filtered table in
    assert "grounded-answers-offline" in page.locator("#results").inner_text()
    _fits(page)


def test_evaluation_query_shows_documents_and_grades(page) -> None:
    _open(page, "/r/f1")
    page.fill("#per-query-filter", "q02")  # the per-query filter
    assert page.locator("#per-query tbody tr:visible").count() == 1
    page.locator("#per-query th button.sort").nth(0).focus()  # sorting by keyboard
    page.keyboard.press("Enter")
    assert page.locator("#per-query th").nth(0).get_attribute("aria-sort") == "ascending"
    page.click("#per-query >> text=q02")
    page.wait_for_url("**/r/f1/q/q02")
    _fits(page)
    docs = page.locator("li.doc")
    assert docs.count() == 5
    first = docs.nth(0).inner_text()
    assert "ED_PRIMARY_NER_PCT" in first and "School enrolment" in first  # text from the corpus
    assert "by model" in first  # the grade and its source
    assert page.locator("li.doc.is-unjudged .unjudged").count() == 4
    link = page.locator("a[download]")
    assert "pool" in link.get_attribute("href")


def test_comparison_query_shows_both_ranked_lists(page, data) -> None:
    _open(page, "/r/f2")
    answer = page.locator("#answer").inner_text()
    assert "nDCG@10" in answer and "95% CI" in answer
    assert page.locator(".chart .main-svg").count() >= 2  # plots drawn
    page.click("#per-query >> text=q04")
    page.wait_for_url("**/r/f2/q/q04*")
    _fits(page)
    lists = page.locator("section.ranked")
    assert lists.count() == 2
    base, cand = lists.nth(0).inner_text(), lists.nth(1).inner_text()
    assert "(baseline)" in base and "(candidate)" in cand
    assert "LF_UNEMP_PCT" in base and "LF_UNEMP_PCT" in cand
    assert page.locator("section.ranked .grade").count() >= 1
    assert page.locator("section.ranked .move").count() >= 1  # rank movements


def test_matrix_cell_shows_output_and_reasons(page, data) -> None:
    _open(page, "/r/f3")
    assert page.locator("ul.legend li").count() == 3
    page.select_option("#grid-show", "failing")
    failing = page.locator("#grid tbody tr:visible")
    assert 0 < failing.count() < len(data["matrix"].case_ids)
    page.locator("#grid td.cell.fail a").first.click()
    page.wait_for_url("**/cell/**")
    _fits(page)
    text = page.locator("main").inner_text()
    assert "Question:" in text and "Evidence:" in text
    assert page.locator(".output pre").count() == 3  # three repeats
    assert "expected declined" in text or "expected answered" in text  # the reason
    assert page.locator("table.assertions td.worse").count() >= 1  # a failed assertion


def test_history_links_to_a_result(page) -> None:
    _open(page, "/history")
    assert page.locator(".chart .main-svg").count() >= 1
    assert page.locator("#history >> text=failed").count() >= 1  # gate outcomes
    page.locator("#history tbody a").first.click()
    page.wait_for_url("**/r/s*")
    _fits(page)
    assert page.locator("h1").count() == 1


def test_exported_file_holds_the_served_content(browser, server, data, tmp_path: Path) -> None:
    """``assay report X.json -o x.html`` and the served page: the same text (at 390 px)."""
    from assay.report.html.export import render_html

    context, page = _context(browser, server, 390)

    script = (
        "() => { const m = document.querySelector('main').cloneNode(true);"
        " m.querySelectorAll('.served-only, .file-only, .chart').forEach(e => e.remove());"
        " return m.innerText; }"
    )
    for rid, key in (("f1", "evaluation"), ("f2", "comparison"), ("f3", "matrix")):
        _open(page, f"/r/{rid}")
        served = page.evaluate(script)
        path = tmp_path / f"{key}.html"
        path.write_text(render_html(data[key]), encoding="utf-8")
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        _fits(page)
        assert page.evaluate(script) == served, key
    context.close()
    assert page.guard.outside == [] and page.guard.errors == []
