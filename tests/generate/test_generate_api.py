"""The public API of assay.generate is pinned and loads lazily."""

from __future__ import annotations

import assay.generate


def test_all_is_pinned() -> None:
    assert sorted(assay.generate.__all__) == [
        "QUERY_WRITER",
        "SyntheticQueries",
        "generate_queries",
    ]
    for name in assay.generate.__all__:
        assert getattr(assay.generate, name) is not None
    assert assay.generate.QUERY_WRITER.rubric_version == "query-writer/1"
