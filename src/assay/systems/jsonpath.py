"""A very small JSON path: dotted keys with optional list markers and indexes.

Enough to point into a search API's response without a dependency::

    hits.hits        -> response["hits"]["hits"]
    data.items[]     -> response["data"]["items"] (and it must be a list)
    results[0].id    -> response["results"][0]["id"]
    $                -> the response itself (an API answering with a bare list)

A leading ``$`` or ``$.`` is accepted and ignored. Keys may not contain dots or
brackets.
"""

from __future__ import annotations

import re
from typing import Any

# A step is a key (str), an index (int) or None: "the value here must be a list".
Step = str | int | None

_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[(\d*)\]")


class PathError(Exception):
    """A path does not match a JSON value; the message says where it stopped."""


def parse_path(path: str) -> tuple[Step, ...]:
    """Parse ``path`` into steps; raise :class:`ValueError` on bad syntax."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
    if text.startswith("."):
        text = text[1:]
    steps: list[Step] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos or (match.group(0).startswith(".") and pos == 0):
            raise ValueError(
                f"bad JSON path {path!r} at character {pos + 1}"
                " (use dotted keys like 'hits.hits', 'data.items[]' or 'results[0].id')"
            )
        key, index = match.group(1), match.group(2)
        if key is not None:
            steps.append(key)
        else:
            steps.append(int(index) if index else None)
        pos = match.end()
    return tuple(steps)


def format_path(steps: tuple[Step, ...]) -> str:
    """Render steps back to path text (``$`` for the root)."""
    out = ""
    for step in steps:
        if isinstance(step, str):
            out += f".{step}" if out else step
        elif step is None:
            out += "[]"
        else:
            out += f"[{step}]"
    return out or "$"


def get_path(value: Any, steps: tuple[Step, ...]) -> Any:
    """Follow ``steps`` into ``value``; raise :class:`PathError` where it fails."""
    current = value
    for depth, step in enumerate(steps):
        where = format_path(steps[: depth + 1])
        if isinstance(step, str):
            if not isinstance(current, dict):
                raise PathError(f"expected an object before {where!r}, got {_kind(current)}")
            if step not in current:
                raise PathError(f"no {where!r}")
            current = current[step]
        elif step is None:
            if not isinstance(current, list):
                raise PathError(f"expected a list at {where!r}, got {_kind(current)}")
        else:
            if not isinstance(current, list):
                raise PathError(f"expected a list at {where!r}, got {_kind(current)}")
            if step >= len(current):
                raise PathError(f"no {where!r} (the list has {len(current)} items)")
            current = current[step]
    return current


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "a number"


def absent_last_key(value: Any, steps: tuple[Step, ...]) -> bool:
    """Whether ``steps`` lead to an object that lacks only their last key."""
    try:
        parent = get_path(value, steps[:-1])
    except PathError:
        return False
    return bool(steps) and isinstance(parent, dict) and steps[-1] not in parent
