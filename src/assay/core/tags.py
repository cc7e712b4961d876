"""Tags: the one rule for splitting a metadata value into the groups it belongs to.

A metadata value (a query's ``topic``, an answer case's ``type``) may hold several
tags separated by :data:`TAG_SEPARATOR`; a row belongs to the group of each of
its tags. Judgment groups, compare slices, gate slices and answer groups all
split values here, so that one value lands in the same groups everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

#: Separates the tags of one metadata value (``"easy; numbers"``).
TAG_SEPARATOR = ";"
#: The group of rows whose value is missing, empty or only separators.
NO_TAG = "(none)"

K = TypeVar("K")


def split_tags(value: Any) -> list[str]:
    """The distinct tags of ``value``, stripped, in order; ``[NO_TAG]`` when there are none.

    ``None``, NaN and the empty string have no tags. Any other value is read as
    its text, so ``3`` is the tag ``"3"``.
    """
    if value is None or (isinstance(value, float) and value != value):
        return [NO_TAG]
    tags = [t.strip() for t in str(value).split(TAG_SEPARATOR)]
    return list(dict.fromkeys(t for t in tags if t)) or [NO_TAG]


def group_by_tags(items: Iterable[tuple[K, Any]]) -> dict[str, list[K]]:
    """``{tag: [key, ...]}`` over ``(key, value)`` pairs, groups in first-seen order.

    A key whose value holds several tags is in each of their groups, once.
    """
    out: dict[str, list[K]] = {}
    for key, value in items:
        for tag in split_tags(value):
            out.setdefault(tag, []).append(key)
    return out
