"""The one rule for runs with failed queries, shared by every command that scores a run.

A *failed query* is one whose system call failed on every attempt (recorded in
the run's sidecar, or by the runner for a live system). It is reported, never
scored as an empty list. The rule:

    A command that scores, compares, gates or verifies a run with more failed
    queries than ``max_failed`` (default 0) exits 1 after printing its report,
    and the report names the failed queries.

It applies alike to ``assay run``, ``evaluate``, ``compare`` (each compared
run), ``gate`` (the candidate) and ``verify-suite`` (both runs). ``--max-failed
N`` accepts up to N failed queries per run; exit 1 then means only what the
command decides (a regression, a failed verification).
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.core.bounds import at_least

#: How many failed queries a run may have before a command fails (``--max-failed``).
DEFAULT_MAX_FAILED = 0
#: What results of model calls name their failures (``failed_what``; queries by default).
FAILED_CALLS = "failed model calls"
#: How many failed query ids a message names before it says "and N more".
_NAMED = 10


def check_max_failed(value: object) -> int:
    """Validate a ``max_failed`` value: a whole number >= 0."""

    return at_least("max_failed", value, 0)


def name_failed(failed: Sequence[str]) -> str:
    """``'q1, q2 and 3 more'``: the failed query ids, at most ten named."""
    ids = [str(q) for q in failed]
    shown = ", ".join(ids[:_NAMED])
    if len(ids) > _NAMED:
        shown += f" and {len(ids) - _NAMED} more"
    return shown


def too_many_failed(
    failed: Sequence[str], max_failed: int, who: str, what: str = "failed queries"
) -> str | None:
    """A message when ``who`` has more than ``max_failed`` failures (``what``), else ``None``."""
    check_max_failed(max_failed)
    if len(failed) <= max_failed:
        return None
    allowed = "none allowed" if max_failed == 0 else f"at most {max_failed} allowed"
    return (
        f"{who}: {len(failed)} {what} ({allowed}; pass `max_failed` N to accept "
        f"up to N): {name_failed(failed)}"
    )


def failed_messages(
    runs: Sequence[tuple[str, Sequence[str]]], max_failed: int, what: str = "failed queries"
) -> list[str]:
    """One message per ``(label, failed ids)`` pair over the limit, in order."""
    out = []
    for label, failed in runs:
        message = too_many_failed(failed, max_failed, label, what)
        if message is not None:
            out.append(message)
    return out
