"""Renderers: read result models, decide nothing."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "FORMATS_BY_KIND": "assay.report.render",
        "print_terminal": "assay.report.render",
    },
    globals(),
)
