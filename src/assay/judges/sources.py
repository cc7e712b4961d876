"""Sources stay apart: a pair labelled by a person and by a model must not be silently merged.

:func:`resolve_sources` is the one rule. A label table that holds, for the same
(query, doc) pair, a ``human`` label and a ``model`` label is refused unless
``prefer`` says which source wins; the result keeps one label per pair and
counts how many labels each source contributed. ``evaluate`` should call it on
any judgments that carry per-pair sources before scoring.
"""

from __future__ import annotations

from typing import Any

from assay.core.errors import UsageError
from assay.judgments.models import LABEL_SOURCES


def resolve_sources(frame: Any, *, prefer: str | None = None, where: str = "labels") -> Any:
    """One label per pair; refuse human/model mixes unless ``prefer`` names the winner.

    ``frame`` has ``query_id``, ``doc_id``, ``grade`` and ``source`` columns.
    Returns a new frame (the argument is not changed).
    """
    if prefer is not None and prefer not in LABEL_SOURCES:
        raise UsageError(
            f"`prefer` must be one of {', '.join(LABEL_SOURCES)}, got {prefer!r}", "prefer"
        )
    keys = ["query_id", "doc_id"]
    dup = frame.duplicated(keys, keep=False)
    if not dup.any():
        return frame
    clash = frame[dup]
    sources = clash.groupby(keys, sort=False)["source"].agg(lambda s: set(s.fillna("unknown")))
    mixed = sources[sources.map(len) > 1]
    if prefer is None or len(mixed) < len(sources):
        if len(mixed) < len(sources):
            same = sources[sources.map(len) == 1].index[0]
            raise UsageError(
                f"{where}: pair {same[0]!r}/{same[1]!r} is labelled twice by one source"
            )
        first = mixed.index[0]
        raise UsageError(
            f"{where}: {len(mixed)} pair(s) have labels from several sources "
            f"({', '.join(sorted(mixed.iloc[0]))} for {first[0]!r}/{first[1]!r}); "
            "say which source wins (`prefer` human or model)"
        )
    rank = frame["source"].map(lambda s: 0 if s == prefer else 1)
    ordered = frame.assign(_rank=rank).sort_values("_rank", kind="stable")
    kept = ordered.drop_duplicates(keys, keep="first").drop(columns="_rank")
    return kept.sort_index()


def source_counts(frame: Any) -> dict[str, int]:
    """How many labels each source gave (``unknown`` when not stated)."""
    counts = frame["source"].fillna("unknown").value_counts()
    return {str(k): int(v) for k, v in sorted(counts.items())}
