"""The main HTML page of a result, chosen by its kind (a kind without a page of its own
gets the generic one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.report.html.compare_pages import comparison_page
from assay.report.html.matrix_pages import matrix_page
from assay.report.html.pages import Links, Page, evaluation_page, gate_page, generic_page
from assay.report.html.tuning_pages import tuning_page


def page_for(result: Any, links: Links) -> Page:
    """The main page of ``result`` (by its kind)."""
    builders: dict[str, Callable[[Any, Links], Page]] = {
        "evaluation": evaluation_page,
        "comparison": comparison_page,
        "matrix": matrix_page,
        "gate": gate_page,
        "tuning": tuning_page,
    }
    return builders.get(str(getattr(result, "kind", "")), generic_page)(result, links)
