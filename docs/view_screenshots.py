"""Take the screenshots of docs/view.md (Playwright, Debian Chromium).

Builds the results of the viewer's tests (``tests/view/_viewdata.py``: the
statistics example's runs, scored, compared, gated and recorded; the matrix
example), serves them with ``assay view`` on a free loopback port, and saves
``docs/view-*.png``. Run from the repository root::

    python docs/view_screenshots.py
"""

from __future__ import annotations

import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "view"))

from _viewdata import make  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

#: (file name, address, viewport width, what to do on the page first)
SHOTS = (
    ("view-home.png", "/", 1200, None),
    ("view-comparison.png", "/r/f2", 1200, None),
    ("view-compare-query.png", "/r/f2/q/q04", 1200, None),
    ("view-evaluation-query.png", "/r/f1/q/q02", 390, None),
    ("view-matrix.png", "/r/f3", 1200, "failing"),
    ("view-matrix-cell.png", "/r/f3/cell/1/1", 390, None),
    ("view-history.png", "/history", 1200, None),
)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    """Serve the example results and screenshot each page of :data:`SHOTS`."""
    import uvicorn

    from assay.view import make_app

    with tempfile.TemporaryDirectory() as tmp:
        data = make(Path(tmp))
        app = make_app(
            list(data["files"].values()),
            store=data["store"],
            corpus=data["corpus"],
            id_field=data["id_field"],
        )
        port = _port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.1)
        try:
            _shoot(f"http://127.0.0.1:{port}")
        finally:
            server.should_exit = True
            thread.join(timeout=10)


def _shoot(base: str) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, path, width, action in SHOTS:
            page = browser.new_page(viewport={"width": width, "height": 820})
            page.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort()
            )
            page.goto(base + path)
            page.wait_for_load_state("load")
            if action:
                page.select_option("#grid-show", action)
            page.wait_for_timeout(800)
            page.screenshot(path=str(ROOT / "docs" / name), full_page=False)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
