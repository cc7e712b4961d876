"""The HTML comparison report renders in headless Chromium with no network."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from assay.stats.compare import compare
from assay.view import render_html
from helpers_synthetic import synthetic_result

CHROMIUM = next(
    (
        p
        for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
        if p and shutil.which(p)
    ),
    None,
)


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed "
    "(.ci/run installs it; locally: apt-get install -y chromium)",
)


def _dump_dom(page, profile, *extra: str) -> str:
    """The DOM of ``page`` after its scripts ran, from headless Chromium (no network)."""
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
        *extra,
        "--dump-dom",
        page.as_uri(),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


@pytest.mark.browser
@needs_chromium
def test_wide_per_query_table_does_not_widen_the_page(tmp_path) -> None:
    """5 systems x 4 metrics: a 40-column per-query table scrolls inside its container."""
    rng = np.random.default_rng(2)
    n = 60
    metrics = ("nDCG@10", "RR", "R@100", "AP")
    base = {m: rng.random(n) for m in metrics}
    systems = [synthetic_result("baseline-system", base)]
    for s in range(4):
        vals = {m: np.clip(v + rng.normal(0.01 * s, 0.1, n), 0, 1) for m, v in base.items()}
        systems.append(synthetic_result(f"candidate-system-{s}", vals))
    res = compare(systems, n_permutations=500, n_resamples=500)
    probe = (
        "<script>window.addEventListener('load',function(){setTimeout(function(){"
        "var t=document.getElementById('per-query');"
        "document.body.setAttribute('data-page-width',document.documentElement.scrollWidth);"
        "document.body.setAttribute('data-table-width',t.scrollWidth);"
        "document.body.setAttribute('data-box-width',t.parentElement.clientWidth);"
        "},500);});</script>"
    )
    page = tmp_path / "wide.html"
    page.write_text(render_html(res).replace("</body>", probe + "</body>"), encoding="utf-8")
    dom = _dump_dom(page, tmp_path / "profile", "--window-size=1000,900")

    def attr(name: str) -> int:
        return int(dom.split(f'data-{name}="', 1)[1].split('"', 1)[0])

    assert attr("table-width") > 1000  # the table really is wider than the window
    assert attr("box-width") < 1000  # ... but its container is not
    assert attr("page-width") <= 1000  # ... and neither is the page
    assert dom.count('class="main-svg"') >= 4


@pytest.mark.browser
@needs_chromium
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
    dom = _dump_dom(page, tmp_path / "profile")
    # two forest plots (one per metric) + two sorted-delta charts, each drawn as SVG
    assert dom.count('class="main-svg"') >= 4
    for chart in ("forest-0", "forest-1", "deltas-0", "deltas-1"):
        assert f'id="{chart}"' in dom
    assert 'class="plot-container plotly"' in dom
    assert 'id="answer"' in dom and 'id="per-query"' in dom
    assert dom.count("<tr>") >= 50
    assert "better" in dom
