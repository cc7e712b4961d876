"""Pages to HTML, served or in one file: the same templates either way.

Served, a page links the app's own CSS and scripts (``/shared``, ``/static``,
``/static/plotly.js``); written to a file, the same page holds them inline, so
it opens with no server and no network.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from assay.report.html.pages import Page
from assay.report.plotly_page import plotly_js
from assay.web.shared import STATIC, template_env

HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def environment() -> Any:
    """The Jinja2 environment of the viewer (its templates, then the shared layout)."""

    return template_env(HERE / "templates")


@lru_cache(maxsize=4)
def _asset(name: str) -> str:

    for folder in (HERE / "static", STATIC):
        if (folder / name).is_file():
            return (folder / name).read_text(encoding="utf-8")
    raise FileNotFoundError(name)


def inline_assets(charts: bool) -> dict[str, str]:
    """The CSS and scripts a file written on its own holds (``</`` made harmless)."""

    scripts = [_asset("view.js")]
    if charts:
        scripts.insert(0, plotly_js())
    return {
        "css": (_asset("base.css") + _asset("view.css")).replace("</", "<\\/"),
        "scripts": [s.replace("</script", "<\\/script") for s in scripts],
    }


def render_page(page: Page, *, served: bool, nav: bool = True) -> str:
    """``page`` as a complete HTML document."""
    assets = None if served else inline_assets(bool(page.charts))
    template = environment().get_template(page.template)
    return template.render(
        title=page.title,
        served=served,
        nav=nav and served,
        assets=assets,
        charts=page.charts,
        **page.values,
    )
