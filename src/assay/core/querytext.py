"""The one rule that turns a typed query into a grouping key.

Behaviour logs, Search Relevance Workbench files and graded CSVs name a query
by its text. Two searches are the same query when their normalised texts are
equal: Unicode NFKC, case folded, runs of white space collapsed to one space,
leading and trailing space removed.
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")


def normalize_query(text: str) -> str:
    """The grouping key of a query text (``"  Wireless  EarBuds "`` -> ``"wireless earbuds"``)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def query_id_for(text: str) -> str:
    """The query id of a text-only query: its normalised text with spaces as ``_``.

    White-space-free so that TREC runs and qrels (white-space separated) can
    carry it; ``"T Towels  Kitchen"`` -> ``"t_towels_kitchen"``.
    """
    return normalize_query(text).replace(" ", "_")
