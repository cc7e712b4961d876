"""Plotly in HTML reports, set up once: the library inline and charts that offer nothing remote.

Every chart of every report (comparison, history, matrix) goes through
:func:`chart_html` with :data:`CONFIG`: no "Share chart" button (plotly.js shows
it by default; it posts the chart's data to Plotly's cloud service, and
plotly.py then leaves the service's URL out of the page) and no plotly.com logo
link (the plotly.js assay ships has no "Edit in Chart Studio" link left to switch
off). plotly.js itself is inlined by :func:`plotly_script`, so a report opens
with no network at all.
"""

from __future__ import annotations

from typing import Any

from assay.io.textio import parse_json

#: The plotly.js configuration of every chart assay writes.
CONFIG: dict[str, Any] = {
    "displaylogo": False,  # no plotly.com logo link in the mode bar
    "showSendToCloud": False,  # no "Share chart" button posting the data to Plotly's cloud
}


def plotly_js() -> str:
    """The whole plotly.js library (served by ``assay view`` from its own address)."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def plotly_script() -> str:
    """A ``<script>`` element holding the whole plotly.js library (no CDN)."""
    return f"<script type='text/javascript'>{plotly_js()}</script>"


def chart_spec(figure: Any) -> str:
    """``figure`` as JSON ``{"data", "layout", "config"}`` (:data:`CONFIG`), safe inside a
    ``<script type="application/json">`` element (no ``<`` left to close it)."""
    import json

    from plotly.utils import PlotlyJSONEncoder

    spec = figure.to_plotly_json()
    spec["config"] = dict(CONFIG, responsive=True)
    return json.dumps(spec, cls=PlotlyJSONEncoder).replace("<", "\\u003c")


def chart_html(figure: Any, div_id: str | None = None) -> str:
    """``figure`` as an HTML fragment (a div and its script) configured with :data:`CONFIG`.

    The page must hold :func:`plotly_script` before the fragment.
    """
    return str(
        figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=dict(CONFIG))
    )


def plotly_css() -> str:
    """The style rules plotly.js injects at run time, as a stylesheet.

    A page whose Content-Security-Policy refuses inline styles (``assay view``)
    blocks that injection, leaving the mode bar unstyled; serving the same rules
    from the page's own address keeps the policy strict. Read from the bundled
    plotly.js itself (``""`` when its layout is not recognised).
    """
    import re

    text = plotly_js()
    start = text.find('{"X,X div":')
    if start < 0:
        return ""
    string = r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"
    pair = re.compile(rf"\s*({string})\s*:\s*({string})\s*([,}}])")
    rules, pos = [], start + 1
    while True:
        m = pair.match(text, pos)
        if m is None:
            break
        key, value = (_js_string(s) for s in m.group(1, 2))
        selector = key.replace("X", ".js-plotly-plot .plotly").replace("Y", ".plotly-notifier")
        rules.append(f"{selector}{{{value}}}")
        pos = m.end()
        if m.group(3) == "}":
            break
    return "\n".join(rules) + "\n" if rules else ""


def _js_string(literal: str) -> str:
    """The value of a JavaScript string literal in single or double quotes."""

    body = literal[1:-1]
    if literal[0] == "'":
        body = body.replace('\\"', '"').replace('"', '\\"').replace("\\'", "'")
    return str(parse_json(f'"{body}"'))
