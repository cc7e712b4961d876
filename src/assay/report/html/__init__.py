"""Result pages in HTML: one renderer, two deliveries.

The pages (templates, values, charts) are built here from result models;
:func:`assay.report.html.export.render_html` writes one as a self-contained
file, and :mod:`assay.view` serves the same pages with links between them.
"""
