"""One result as one self-contained HTML file: the page ``assay view`` serves, inlined.

``assay report X.json -o x.html`` and ``assay history -o x.html`` write these.
The file holds its CSS, its scripts and plotly.js; links to pages that need a
server (a query's ranked lists) are left out, and a matrix's cells are written
below its grid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.report.html.by_kind import page_for
from assay.report.html.history_pages import history_page
from assay.report.html.matrix_pages import matrix_page, read_cases
from assay.report.html.pages import Links
from assay.report.html.render import render_page


def render_html(result: Any, *, folders: list[Path] | None = None) -> str:
    """The page of ``result`` (any registered result kind) as one HTML document."""

    links = Links(None, served=False)
    if getattr(result, "kind", None) == "matrix":
        page = matrix_page(result, links, read_cases(result, folders or [Path.cwd()]))
    else:
        page = page_for(result, links)
    return render_page(page, served=False)


def render_history_html(report: Any) -> str:
    """A history report (:class:`assay.store.history.HistoryReport`) as one HTML document."""

    return render_page(history_page(report, Links(None, served=False)), served=False)
