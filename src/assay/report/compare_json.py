"""Render a :class:`ComparisonResult` as JSON (every number, the model itself)."""

from __future__ import annotations

from assay.stats.models import ComparisonResult


def render_json(result: ComparisonResult) -> str:
    """The comparison serialised with :meth:`ComparisonResult.to_json`."""
    return result.to_json() + "\n"
