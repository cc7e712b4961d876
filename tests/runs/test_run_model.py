"""Run.query_ids and Run.longest against plain-Python counts, whatever the category order."""

from __future__ import annotations

from collections import Counter

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.runs.models import Run


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.sampled_from(["q1", "q2", "q3", "q10", "é"]), min_size=1, max_size=40),
    st.booleans(),
)
def test_query_ids_first_appearance(queries, sorted_categories):
    order = list(dict.fromkeys(queries))
    categories = [*sorted(order), "unused"] if sorted_categories else order
    frame = pd.DataFrame(
        {
            "query_id": pd.Categorical(queries, categories=categories),
            "doc_id": [f"d{i}" for i in range(len(queries))],
            "score": [1.0] * len(queries),
        }
    )
    run = Run(frame)
    assert run.query_ids == order
    assert run.longest == max(Counter(queries).values())
    plain = Run(frame.assign(query_id=frame["query_id"].astype(str)))
    assert plain.query_ids == order and plain.longest == run.longest
