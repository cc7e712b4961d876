"""The policy lines of every report: each scoring rule a result records, in words.

A rule that differs from trec_eval's default is marked and says what trec_eval
does instead. The renderers of evaluate, compare, gate and verify-suite print
these lines; they decide nothing (the result's ``policies`` say it all).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from assay.core.policies import ScoringPolicy

#: What a result without recorded rules says (a file written before they were recorded).
NOT_RECORDED = "scoring policies not recorded in this result (written by an older assay)"
#: The mark of a rule that differs from trec_eval's default.
DIFFERS = "differs:"


def policy_text(rule: ScoringPolicy) -> str:
    """One rule as one line: what assay did, and what trec_eval does where that differs."""
    if not rule.differs:
        return rule.text
    return f"{rule.text} [{DIFFERS} {rule.trec_eval or 'its default does otherwise'}]"


def policy_lines(rules: Sequence[ScoringPolicy]) -> list[str]:
    """Every rule of a result as a line (:data:`NOT_RECORDED` when it records none)."""
    return [policy_text(r) for r in rules] or [NOT_RECORDED]
