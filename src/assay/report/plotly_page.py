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

#: The plotly.js configuration of every chart assay writes.
CONFIG: dict[str, Any] = {
    "displaylogo": False,  # no plotly.com logo link in the mode bar
    "showSendToCloud": False,  # no "Share chart" button posting the data to Plotly's cloud
}


def plotly_script() -> str:
    """A ``<script>`` element holding the whole plotly.js library (no CDN)."""
    from plotly.offline import get_plotlyjs

    return f"<script type='text/javascript'>{get_plotlyjs()}</script>"


def chart_html(figure: Any, div_id: str | None = None) -> str:
    """``figure`` as an HTML fragment (a div and its script) configured with :data:`CONFIG`.

    The page must hold :func:`plotly_script` before the fragment.
    """
    return str(
        figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=dict(CONFIG))
    )
