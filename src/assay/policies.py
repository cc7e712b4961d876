"""Scoring policies, written once: their allowed values, what each means, and the check.

Two policies change a score: ``missing`` (what a judged query absent from the
run scores) and ``ties`` (how tied scores are ordered). Every report prints
:func:`describe` of the policies used; every entry point checks them with
:func:`check_policies`.
"""

from __future__ import annotations

from typing import Literal

from assay.errors import UsageError

MissingPolicy = Literal["zero", "skip"]
TiePolicy = Literal["score", "given"]

#: ``missing`` values and the sentence every report prints for each.
MISSING: dict[str, str] = {
    "zero": "judged queries missing from the run score 0 (trec_eval -c)",
    "skip": "judged queries missing from the run are skipped (trec_eval default)",
}
#: ``ties`` values and the sentence every report prints for each.
TIES: dict[str, str] = {
    "score": "tied scores ordered by doc id descending (trec_eval)",
    "given": "ties kept in the given order",
}
MISSING_POLICIES: tuple[str, ...] = tuple(MISSING)
TIE_POLICIES: tuple[str, ...] = tuple(TIES)


def check_policies(missing: str | None = None, ties: str | None = None) -> None:
    """Raise :class:`UsageError` naming the parameter when a policy value is unknown."""
    for name, value, allowed in (("missing", missing, MISSING), ("ties", ties, TIES)):
        if value is not None and value not in allowed:
            raise UsageError(f"`{name}` must be one of {', '.join(allowed)}; got {value!r}", name)


def describe(missing: str, ties: str) -> str:
    """The policy line of a report: what ``missing`` and ``ties`` mean, in words."""
    check_policies(missing, ties)
    return f"{MISSING[missing]}; {TIES[ties]}"
