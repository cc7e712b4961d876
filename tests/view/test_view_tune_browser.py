"""A tuning result in ``assay view`` (Debian's Chromium, desktop and phone widths): a heat
map for two tuned keys, a curve for one, each fold's choice, the recommended set with its
honest score; no request leaves the host, nothing overflows, every text is legible."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
from test_view_browser import CHROMIUM, WIDTHS, _fits, _free_port, _Guard

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Chromium is not at /usr/bin/chromium"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tuning"))


def _tuning(folder: Path, params: tuple[str, ...], name: str) -> Path:
    from _tuning import OPTIMUM, judgments, write_system

    from assay.procedures.options import SourceOptions
    from assay.procedures.tuning import TuneOptions, tune

    spec = write_system(folder, "optimum", OPTIMUM)
    options = TuneOptions(
        params=params, metrics=("nDCG@10", "RR"), folds=4, n_permutations=500, n_resamples=500
    )
    result = tune(judgments(folder, n=24), options, SourceOptions(system=spec, no_cache=True), None)
    path = folder / f"{name}.json"
    path.write_text(result.to_json(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    import uvicorn

    from assay.view import make_app

    folder = tmp_path_factory.mktemp("tune-view")
    files = [
        _tuning(folder, ("params.alpha=0.0,0.3,0.6,0.9", "timeout=5,10,20"), "two"),
        _tuning(folder, ("params.alpha=0.0,0.2,0.4,0.6,0.8",), "one"),
    ]
    app = make_app(files, allowed_hosts=["127.0.0.1"])
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


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"{w}px")
def page(request, server):
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        guard = _Guard(server)
        context = browser.new_context(viewport={"width": request.param, "height": 900})
        context.route("**/*", guard.route)
        p = context.new_page()
        p.on("pageerror", lambda exc: guard.errors.append(str(exc)))
        p.base, p.guard = server, guard
        yield p
        assert guard.outside == [], guard.outside
        assert guard.errors == [], guard.errors
        context.close()
        browser.close()


def _open(page, path: str, chart: bool = True) -> None:
    page.goto(page.base + path)
    page.wait_for_load_state("load")
    if chart:
        page.wait_for_selector("#objective .main-svg")
    _fits(page)


def test_two_keys_draw_a_heat_map_with_the_folds_choices(page) -> None:
    _open(page, "/", chart=False)
    assert page.locator("#results >> text=tuning").count() == 2
    _open(page, "/r/f1")
    assert page.locator("#objective .heatmaplayer").count() == 1
    assert page.locator("#folds tbody tr").count() == 4
    assert "params.alpha=0.6" in page.locator("#recommended").inner_text()
    assert page.locator("#grid tbody tr").count() == 12
    verdicts = page.locator("#held-out tbody tr")
    assert verdicts.count() == 2 and "better" in verdicts.nth(0).inner_text()


def test_one_key_draws_a_curve(page) -> None:
    _open(page, "/r/f2")
    assert page.locator("#objective .heatmaplayer").count() == 0
    assert page.locator("#objective .scatterlayer .trace").count() == 1
    assert page.locator("#grid tbody tr").count() == 5
