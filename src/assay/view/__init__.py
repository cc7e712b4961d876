"""``assay view``: a read-only local web app over the history store and result files.

:func:`make_app` builds the FastAPI application (pages and a JSON API);
:func:`render_html` writes the same page of one result as a self-contained
HTML file (what ``assay report X.json -o x.html`` writes).
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "Catalog": "assay.view.catalog",
        "make_app": "assay.view.app",
        "render_history_html": "assay.report.html.export",
        "render_html": "assay.report.html.export",
    },
    globals(),
)
