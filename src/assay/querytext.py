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
