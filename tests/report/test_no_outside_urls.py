"""No page assay writes offers to send data away or loads anything from another host.

Every HTML page the project can write (comparison, history and matrix
reports, the judging pages) is parsed: no ``src``/``href``/``action``
attribute, style, script or text holds an http(s) URL, except the user data
the test put there on purpose (host ``user-data.example``). The one script
exempt from the text search is plotly.js itself, checked to be the library
byte for byte, and checked at work: opened in Chromium with every request to
another host aborted and counted, its mode bar shows no "Share chart", no
"Edit in Chart Studio" and no plotly.com logo link.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from helpers_synthetic import synthetic_result

USER = "https://user-data.example/x?a=1"  # user data: may appear, but only as data
URL = re.compile(r"(?i)(?:https?|ftp|wss?):(?:\\?/){2}([^\\/\s\"'<>)]*)")
LINK_ATTRS = {"src", "href", "action", "formaction", "srcset", "poster", "data", "content"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class _Parts(HTMLParser):
    """Attributes, scripts, styles and text of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attrs: list[tuple[str, str]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs += [(k, v or "") for k, v in attrs]
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        {"script": self.scripts, "style": self.styles}.get(self._in or "", self.text).append(data)


def _compare_page() -> str:
    from assay.stats.compare import compare
    from assay.view import render_html

    rng = np.random.default_rng(3)
    base = rng.random(30)
    texts = [f"query {i} {USER}" for i in range(30)]
    results = [
        synthetic_result(USER + "/base", {"nDCG@10": base}, texts=texts),
        synthetic_result("cand", {"nDCG@10": np.clip(base + 0.05, 0, 1)}, texts=texts),
    ]
    return render_html(compare(results, n_permutations=200, n_resamples=200))


def _history_page() -> str:
    from assay.store.api import HistoryEntry
    from assay.store.history import build_history
    from assay.view import render_history_html

    entries = [
        HistoryEntry(
            run_id=i,
            kind="evaluation",
            schema_version="1",
            system=USER,
            judgments_name="qs",
            judgments_version=f"sha256:{'ab'[i > 2] * 16}",
            created_at=f"2024-0{i}-01T00:00:00+00:00",
            git_commit="0123abcd",
            metrics={"nDCG@10": 0.1 * i},
        )
        for i in range(1, 5)
    ]
    return render_history_html(build_history(entries, store=USER))


def _matrix_page() -> str:
    from assay.matrix import load_matrix, run_matrix
    from assay.view import render_html

    return render_html(run_matrix(load_matrix(EXAMPLES / "matrix" / "matrix.toml")))


def _judging_pages(tmp_path: Path) -> dict[str, str]:
    from fastapi.testclient import TestClient

    from assay.judging.serve import prepare

    pool = tmp_path / "pool.jsonl"
    line = {"query_id": "q1", "query": USER, "doc_id": "d1", "document": {"text": USER}}
    pool.write_text(json.dumps(line) + "\n")
    app, links = prepare(
        pool,
        str(tmp_path / "j.db"),
        assessors=["alice"],
        adjudicators=["carol"],
        base_url="http://testserver",
    )
    pages = {"judging denied": TestClient(app).get("/").text}
    for name in ("alice", "carol"):
        client = TestClient(app)
        client.get(links[name].removeprefix("http://testserver"))
        pages[f"judging {name}"] = client.get("/").text
    pages["judging agreement"] = client.get("/agreement").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', pages["judging alice"]).group(1)
    alice = TestClient(app)
    alice.get(links["alice"].removeprefix("http://testserver"))
    card = alice.post(
        "/act", data={"csrf": csrf, "pair": "1", "value": "2"}, headers={"HX-Request": "true"}
    )
    pages["judging card"] = card.text
    pages["judging not found"] = alice.get("/?pair=99").text
    return pages


def _view_pages(pages: dict[str, str], folder: Path) -> dict[str, str]:
    """The same results served by ``assay view`` (a result file each, and a query page)."""
    from fastapi.testclient import TestClient

    from assay.matrix import load_matrix, run_matrix
    from assay.stats.compare import compare
    from assay.view import make_app

    rng = np.random.default_rng(3)
    base = rng.random(10)
    texts = [f"query {i} {USER}" for i in range(10)]
    results = [
        synthetic_result(USER + "/base", {"nDCG@10": base}, texts=texts),
        synthetic_result("cand", {"nDCG@10": np.clip(base + 0.05, 0, 1)}, texts=texts),
    ]
    files = []
    made = (
        compare(results, n_permutations=100, n_resamples=100),
        results[0],
        run_matrix(load_matrix(EXAMPLES / "matrix" / "matrix.toml")),
    )
    for i, result in enumerate(made):
        files.append(folder / f"r{i}.json")
        files[-1].write_text(result.to_json(), encoding="utf-8")
    client = TestClient(make_app(files))
    for name, url in (
        ("view home", "/"),
        ("view comparison", "/r/f1"),
        ("view comparison query", "/r/f1/q/q0"),
        ("view evaluation", "/r/f2"),
        ("view evaluation query", "/r/f2/q/q0"),
        ("view matrix", "/r/f3"),
        ("view matrix cell", "/r/f3/cell/0/0"),
        ("view history", "/history"),
    ):
        response = client.get(url)
        assert response.status_code == 200, (name, response.text[:500])
        pages[name] = response.text
    return pages


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    made = {"compare": _compare_page(), "history": _history_page(), "matrix": _matrix_page()}
    made = _view_pages(made, tmp_path_factory.mktemp("view"))
    return made | _judging_pages(tmp_path_factory.mktemp("judging"))


def test_no_page_points_to_another_host(pages: dict[str, str]) -> None:
    from plotly.offline import get_plotlyjs

    library = get_plotlyjs()
    user_seen = 0
    for name, html in pages.items():
        parts = _Parts()
        parts.feed(html)
        for key, value in parts.attrs:
            if key in LINK_ATTRS:
                assert not re.match(r"\s*([a-z][a-z0-9+.-]*:|//|\\\\)", value, re.I), (
                    name,
                    key,
                    value,
                )
        scripts = [s for s in parts.scripts if s != library]
        assert len(parts.scripts) - len(scripts) == (name in ("compare", "history", "matrix"))
        for kind, chunks in (("script", scripts), ("style", parts.styles), ("text", parts.text)):
            for chunk in chunks:
                for match in URL.finditer(chunk):
                    assert match.group(1) == "user-data.example", (name, kind, match.group(0))
                    user_seen += 1
    assert user_seen >= 5  # the user's URLs did reach the pages, as data


def test_every_chart_offers_nothing_remote(pages: dict[str, str]) -> None:
    names = ("compare", "history", "matrix", "view comparison", "view matrix")
    for name in names:
        specs = re.findall(
            r'<script type="application/json" id="[^"]+-spec">(.*?)</script>', pages[name], re.S
        )
        assert specs, name
        for spec in specs:
            config = json.loads(spec)["config"]
            assert config["displaylogo"] is False and config["showSendToCloud"] is False
            assert "plotlyServerURL" not in config


@pytest.mark.browser
@pytest.mark.slow
def test_plotly_pages_make_no_outside_request_in_chromium(
    pages: dict[str, str], tmp_path: Path
) -> None:
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("headless Chromium is not installed at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    outside: list[str] = []

    def route(r) -> None:
        outside.append(r.request.url)
        r.abort()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route(re.compile(r"^(?!file:|data:|blob:)"), route)
            for name in ("compare", "history", "matrix"):
                path = tmp_path / f"{name}.html"
                path.write_text(pages[name], encoding="utf-8")
                page = context.new_page()
                page.goto(path.as_uri())
                page.wait_for_selector(".main-svg")
                page.hover(".plot-container")
                page.wait_for_selector(".modebar-btn")
                titles = page.eval_on_selector_all(
                    ".modebar-btn", "bs => bs.map(b => b.getAttribute('data-title') || '')"
                )
                assert titles, name
                shown = " | ".join(titles).lower()
                assert "download plot" in shown  # the mode bar is there ...
                assert not re.search("share|cloud|studio|plotly", shown), (
                    shown
                )  # ... but no sharing
                assert page.locator(".modebar-btn--logo, a[href*='plotly']").count() == 0
                page.close()
        finally:
            browser.close()
    assert outside == []
