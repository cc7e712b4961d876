"""Scoring policies, written once: their allowed values, what each means, and the check.

Two policies are chosen by the caller and change a score: ``missing`` (what a
judged query absent from the run scores) and ``ties`` (how tied scores are
ordered); every entry point checks them with :func:`check_policies`.

This is a bottom module (it imports only :mod:`assay.core.errors`): runs, systems
and the metrics engine read the policy types and checks from here. The
sentences that list every rule in force on one evaluation (measures, no-answer
queries, failed calls, ...) are built by :mod:`assay.metrics.rules`; a rule is
a :class:`ScoringPolicy`, and :func:`merge_policies` joins the lists of the
evaluations behind a comparison, a gate or a verify-suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from assay.core.errors import UsageError

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

#: What trec_eval does instead, for each ``missing`` and ``ties`` value that differs.
_TREC_MISSING = {"zero": "trec_eval's default skips them (it scores them 0 only with -c)"}
_TREC_TIES = {"given": "trec_eval orders tied scores by doc id descending, whatever the file order"}


class ScoringPolicy(BaseModel):
    """One rule that shapes the scores of a result, in words, compared with trec_eval."""

    name: str = Field(description="which rule: missing, ties, no_answer, relevance, gains, ...")
    text: str = Field(description="what assay did, in one short sentence")
    differs: bool = Field(False, description="true when trec_eval's default does otherwise")
    trec_eval: str | None = Field(None, description="what trec_eval does instead (when differs)")


def check_policies(missing: str | None = None, ties: str | None = None) -> None:
    """Raise :class:`UsageError` naming the parameter when a policy value is unknown."""
    for name, value, allowed in (("missing", missing, MISSING), ("ties", ties, TIES)):
        if value is not None and value not in allowed:
            raise UsageError(f"`{name}` must be one of {', '.join(allowed)}; got {value!r}", name)


def describe(missing: str, ties: str) -> str:
    """The two chosen policies in words: what ``missing`` and ``ties`` mean."""
    check_policies(missing, ties)
    return f"{MISSING[missing]}; {TIES[ties]}"


def policy_rule(name: str, text: str, trec_eval: str | None = None) -> ScoringPolicy:
    """One rule; ``trec_eval`` says what trec_eval does instead (then it differs)."""
    return ScoringPolicy(name=name, text=text, differs=trec_eval is not None, trec_eval=trec_eval)


def chosen_policies(missing: str, ties: str) -> list[ScoringPolicy]:
    """The ``missing`` and ``ties`` rules (what a result that records nothing else says)."""
    check_policies(missing, ties)
    return [
        policy_rule("missing", MISSING[missing], _TREC_MISSING.get(missing)),
        policy_rule("ties", TIES[ties], _TREC_TIES.get(ties)),
    ]


def merge_policies(
    lists: Sequence[Sequence[ScoringPolicy]], labels: Sequence[str] | None = None
) -> list[ScoringPolicy]:
    """The rules of several evaluations in one list, in order, each sentence once.

    With ``labels`` (one per list: the run names), a rule that not every list
    holds says whose it is (``"bm25: 3 run queries not judged ..."``).
    """
    texts = [{r.text for r in rules} for rules in lists]
    seen: set[str] = set()
    out: list[ScoringPolicy] = []
    for i, rules in enumerate(lists):
        for rule in rules:
            shared = all(rule.text in t for t in texts)
            if labels is not None and not shared:
                rule = rule.model_copy(update={"text": f"{labels[i]}: {rule.text}"})
            if rule.text not in seen:
                seen.add(rule.text)
                out.append(rule)
    return out
