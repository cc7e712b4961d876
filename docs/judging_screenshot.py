"""Take docs/judging.png: the judging page on the statistics example (Playwright, Debian Chromium).

Run from the repository root after the walkthrough of docs/workflows/judging.md
made ``pool.jsonl``::

    python docs/judging_screenshot.py WORKDIR   # WORKDIR holds pool.jsonl and GUIDE.md
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "judging"))

from _server import CHROMIUM, LAUNCH_ARGS, Server, free_port
from playwright.sync_api import sync_playwright


def main(work: Path) -> None:
    """Serve ``work/pool.jsonl``, grade two pairs as alice, screenshot the third."""
    catalog = Path(__file__).resolve().parents[1] / "examples" / "statistics" / "catalog.csv"
    args = ["pool.jsonl", "--store", "judging.db", "--assessors", "alice,bob", "--overlap", "2"]
    args += ["--guidelines", "GUIDE.md", "--corpus", str(catalog), "--id-field", "idno"]
    server = Server(args, work, free_port()).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 760})
            page.goto(server.links["alice"])
            for key in ("1", "0"):
                page.keyboard.press(key)
                page.wait_for_selector("#ack")
                page.wait_for_timeout(300)
            out = Path(__file__).resolve().parent / "judging.png"
            page.screenshot(path=str(out), full_page=False)
            browser.close()
    finally:
        server.kill()


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
