"""Bounded JSON parsing: the one ``loads`` for every JSON text assay reads.

Python's :func:`json.loads` accepts what assay must refuse: nesting thousands
deep (a ``RecursionError`` in the parser or in whatever walks the value next),
integers of thousands of digits (slow, then a ``ValueError`` from the int
limit), and numbers like a 400-digit float that become ``inf``. :func:`loads` refuses them with a
:class:`JSONError` (a ``ValueError`` carrying line and column, like
:class:`json.JSONDecodeError`), so every reader turns it into a message naming
file, line and field.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

#: Deepest nesting of arrays and objects accepted.
MAX_DEPTH = 100
#: Integers outside a signed 64-bit range are refused (no id, grade, rank or count is larger).
MAX_INT = 2**63 - 1
#: Longest number literal accepted (characters).
MAX_NUMBER_CHARS = 64


class JSONError(json.JSONDecodeError):
    """A JSON text assay refuses; a :class:`json.JSONDecodeError`, so existing handlers apply.

    ``lineno`` and ``colno`` are ``None`` when the place is unknown.
    """

    def __init__(
        self,
        msg: str,
        lineno: int | None = None,
        colno: int | None = None,
        literal: str | None = None,
    ) -> None:
        where = f" (line {lineno}, column {colno})" if lineno is not None else ""
        ValueError.__init__(self, f"{msg}{where}")
        self.msg = msg
        self.doc = ""
        self.pos = 0
        self.lineno = lineno
        self.colno = colno
        self.literal = literal

    def __reduce__(self) -> Any:
        return (type(self), (self.msg, self.lineno, self.colno, self.literal))

    def located(self, text: str) -> JSONError:
        """The same error with the line and column of its literal in ``text``, if found."""
        if self.lineno is not None or not self.literal:
            return self
        pos = text.find(self.literal)
        if pos < 0:
            return self
        line = text.count("\n", 0, pos) + 1
        return JSONError(self.msg, line, pos - text.rfind("\n", 0, pos))


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONError(f"number {text[:20]}... has {len(text)} digits, too many", literal=text)
    value = int(text)
    if not -MAX_INT - 1 <= value <= MAX_INT:
        raise JSONError(f"integer {text} is out of range (at most 2**63 - 1 in size)", literal=text)
    return value


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONError(f"number {text[:20]}... has {len(text)} characters, too many", literal=text)
    value = float(text)
    if not math.isfinite(value):
        raise JSONError(f"number {text} is too large to be a finite float", literal=text)
    return value


def _constant(name: str) -> float:
    """``NaN`` and ``Infinity`` parse as floats, as in :mod:`json`: readers that need a
    finite number say so with the field's name."""
    return float(name.replace("Infinity", "inf"))


def _depth_ok(value: Any, limit: int) -> bool:
    """Iterative walk: True when ``value`` nests no deeper than ``limit``."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


#: Digits to ``0``, ``.``/``e``/``E`` to ``.``, every other byte to a space: a space and
#: 19 zeros mark an integer that may be past 2**63 - 1 (or a string holding one).
_DIGIT_RUNS = bytes(
    0x30 if 0x30 <= b <= 0x39 else 0x2E if b in b".eE" else 0x20 for b in range(256)
)
_LONG_RUN = b" " + b"0" * 19
_SLOW = object()


def _fast(text: str | bytes) -> Any:
    """``orjson`` parse when the text cannot break a bound it does not check; else ``_SLOW``.

    ``orjson`` refuses what :mod:`json` is lenient about here (``NaN``, lone
    surrogates, floats past the double range, nesting past 1024): those texts,
    and any with a run of 19 digits (a number that may be out of range or too
    long), take the exact path below, which accepts or names the problem. Long
    float literals are parsed by ``orjson`` (in linear time), whatever their length.
    """
    import orjson

    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if _LONG_RUN in b" " + raw.translate(_DIGIT_RUNS):
        return _SLOW
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _SLOW


def dumps(value: Any, *, indent: int | None = None) -> bytes:
    """JSON bytes of ``value`` (``orjson``: numpy arrays written from their memory, NaN as
    null, ``orjson.Fragment`` values inserted as they are); 2-space indent when ``indent``."""
    import orjson

    option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(value, option=option)


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON like :func:`json.loads`, within the bounds above; raise :class:`JSONError`."""
    value = _fast(text)
    if value is not _SLOW:
        nesting = text.count(b"[" if isinstance(text, bytes) else "[") + text.count(
            b"{" if isinstance(text, bytes) else "{"
        )
        if nesting > max_depth and not _depth_ok(value, max_depth):
            raise JSONError(f"nested deeper than {max_depth} levels")
        return value
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8")
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except JSONError as exc:
        raise exc.located(text) from None
    except RecursionError:
        raise JSONError(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise JSONError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:  # the interpreter's integer-size limit, and the like
        raise JSONError(str(exc)) from None
    if (text.count("[") + text.count("{")) > max_depth and not _depth_ok(value, max_depth):
        raise JSONError(f"nested deeper than {max_depth} levels")
    if _SURROGATE_ESCAPE.search(text):
        _check_unicode(value, text)
    return value


def _check_unicode(value: Any, text: str) -> None:
    """Refuse a lone surrogate escape (``\\ud800``): it is no character and cannot be written."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                match = _SURROGATE_ESCAPE.search(text)
                literal = match.group(0) if match else None
                raise JSONError(
                    "a string holds a lone surrogate escape (not a character; remove it)",
                    literal=literal,
                ).located(text) from None
