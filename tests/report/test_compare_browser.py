"""The HTML comparison report renders in headless Chromium with no network."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from assay.report.compare_html import render_html
from assay.stats.compare import compare
from assay.stats.synthetic import synthetic_result

CHROMIUM = next(
    (
        p
        for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
        if p and shutil.which(p)
    ),
    None,
)


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed "
    "(.ci/run installs it; locally: apt-get install -y chromium)",
)
def test_html_report_renders_charts_and_tables(tmp_path) -> None:
    rng = np.random.default_rng(1)
    base = rng.random(50)
    cand = np.clip(base + 0.1 + rng.normal(0, 0.05, 50), 0, 1)
    meta = {"language": ["en", "de"] * 25}
    res = compare(
        [
            synthetic_result("base", {"nDCG@10": base, "RR": base}, metadata=meta),
            synthetic_result("cand", {"nDCG@10": cand, "RR": base}, metadata=meta),
        ],
        by=["language"],
        n_permutations=1000,
        n_resamples=1000,
    )
    page = tmp_path / "compare.html"
    page.write_text(render_html(res), encoding="utf-8")
    cmd = [
        CHROMIUM,
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
    # two forest plots (one per metric) + two sorted-delta charts, each drawn as SVG
    assert dom.count('class="main-svg"') >= 4
    for i in range(4):
        assert f'id="chart-{i}"' in dom
    assert 'class="plot-container plotly"' in dom
    assert 'id="aggregate"' in dom and 'id="per-query"' in dom
    assert dom.count("<tr>") >= 50
    assert "better" in dom
