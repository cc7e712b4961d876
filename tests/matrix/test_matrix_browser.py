"""The HTML matrix report renders in headless Chromium with no network."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from assay.matrix import load_matrix, run_matrix
from assay.view import render_html

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix"
CHROMIUM = next(
    (
        p
        for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
        if p and shutil.which(p)
    ),
    None,
)


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_grid_and_chart_render(tmp_path: Path) -> None:
    result = run_matrix(load_matrix(EXAMPLE / "matrix.toml"))
    page = tmp_path / "matrix.html"
    page.write_text(render_html(result), encoding="utf-8")
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=5000",
        "--dump-dom",
        page.as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    cells = re.findall(
        r"<td class=\"cell (pass|fail|flaky)\" data-variant=\"([^\"]+)\">"
        r"<a [^>]*><span [^>]*>[^<]*</span> ([^<]+)</a></td>",
        dom,
    )
    assert len(cells) == 3 * 4
    assert ("fail", "strict/eager", "0/3") in cells
    assert sum(c[0] == "pass" for c in cells) == 10
    # plotly drew the pass-rate chart (an SVG inside the chart div)
    chart = dom.split('id="pass-rates"', 1)[1]
    assert "main-svg" in chart[:20000]
