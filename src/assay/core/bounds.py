"""Bounds of parameters (numbers, choices), checked and worded in one place.

Messages name the library parameter in backticks (```k```); the CLI rewrites
it as the flag that sets it (``-k``), so the same check reads right from
Python and from the command line. It imports only :mod:`assay.core.errors`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from assay.core.errors import UsageError


class BoundError(UsageError, ValueError):
    """A parameter outside its bounds (also a :class:`ValueError` for plain Python callers)."""


def at_least(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an ``int`` if it is a whole number ``>= minimum``; else a :class:`UsageError`.

    Booleans and floats are refused (``k=2.5`` is a mistake, not a depth of 2).
    """
    try:
        number = None if isinstance(value, bool) else operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        number = None
    if number is None or number < minimum:
        raise BoundError(
            f"`{name}` must be a whole number >= {minimum}, got {value!r}", parameter=name
        )
    return number


def level(name: str, value: object, maximum: float = 1.0) -> float:
    """``value`` as a level strictly between 0 and ``maximum`` (``alpha``, a power);
    else a :class:`UsageError` naming ``name``. The one rule of every alpha."""
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if number is None or not 0.0 < number < maximum:
        raise BoundError(
            f"`{name}` must be between 0 and {maximum:g}, got {value!r}", parameter=name
        )
    return float(number)


def one_of(name: str, value: object, choices: Sequence[str]) -> str:
    """``value`` when it is one of ``choices``; else a :class:`UsageError` naming ``name``."""
    if value not in choices:
        raise BoundError(
            f"`{name}` must be one of {', '.join(choices)}; got {value!r}", parameter=name
        )
    return str(value)
