"""Counts in words: ``1 query``, ``2 queries`` (one rule for every report and message)."""

from __future__ import annotations

#: Irregular plurals of the nouns reports count.
_PLURALS = {"query": "queries", "is": "are", "was": "were", "has": "have"}


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """``singular`` or its plural, agreeing with ``n``; the last word of a phrase changes."""
    if n == 1:
        return singular
    if plural_form is not None:
        return plural_form
    head, _, last = singular.rpartition(" ")
    many = _PLURALS.get(last) or (last[:-1] + "ies" if last.endswith("y") else last + "s")
    return f"{head} {many}" if head else many


def count(n: int, singular: str, plural_form: str | None = None) -> str:
    """``n`` and the noun agreeing with it: ``count(1, "query")`` -> ``1 query``."""
    return f"{n} {plural(n, singular, plural_form)}"
