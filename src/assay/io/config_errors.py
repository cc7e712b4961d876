"""Faults in config files (assay.toml, matrix files), worded one way.

Every fault found in a config file reads ``FILE:LINE: [table.name] key: message
(hint)``: :func:`config_problem` is the one place that wording is made, and
:func:`validation_problems` turns a pydantic ``ValidationError`` of one table
into such problems (unknown keys with a guess, missing keys, wrong types and
out-of-range values, secrets shown in their ``${VAR}`` form). Systems, models,
matrix and tune files all report through them (exit 2).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import Problem, UsageError
from assay.core.redact import redact_text

#: Most problems reported for one table.
MAX_TABLE_PROBLEMS = 20


class ConfigFault(UsageError):
    """Faults in one table of a config file (a :class:`UsageError`, exit 2), with their
    :class:`~assay.core.errors.Problem` objects (``assay validate`` lists them)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its problems (a Ray worker's error reaches the driver whole)."""
        return (type(self), (self.problems,), self.__dict__)


def config_problem(
    path: str | Path,
    line: int | None,
    table: str,
    key: str,
    message: str,
    hint: str | None = None,
) -> Problem:
    """One fault in a config file: ``FILE:LINE: [table] key: message (hint)``.

    ``table`` is the dotted table name (``systems.bm25``, ``matrix``), ``key``
    the key at fault (empty when the fault is the table itself).
    """
    return Problem(str(path), line, f"{key}: {message}" if key else message, table, hint)


def table_problem(
    path: str | Path, text: str | None, table: str, key: str, message: str, hint: str | None = None
) -> Problem:
    """:func:`config_problem` with the line of ``key`` in ``[table]`` looked up in ``text``."""
    return config_problem(path, toml_line(text, table, key), table, key, message, hint)


def file_text(path: str | Path | None) -> str | None:
    """The text of a config file, for line numbers (None when it cannot be read)."""
    try:
        return Path(path).read_text(encoding="utf-8") if path is not None else None
    except (OSError, UnicodeDecodeError):
        return None


def toml_line(text: str | None, table: str, key: str = "") -> int | None:
    """The line of ``key`` in ``[table]`` of TOML ``text`` (or of the header; best effort).

    ``table`` is dotted (``systems.bm25``); a key written as ``NAME.key`` under the
    parent table, or ``NAME = ...`` (an inline table or a value where a table is
    expected) is found too.
    """
    if not text:
        return None
    parts = table.split(".")
    names = [rf"\"?{re.escape(p)}\"?" for p in parts]
    dot = r"\s*\.\s*"
    header = re.compile(rf"^\s*\[\s*{dot.join(names)}\s*\]\s*(#.*)?$")
    above = dot.join(names[:-1])
    parent = re.compile(rf"^\s*\[\s*{above}\s*\]\s*(#.*)?$") if len(parts) > 1 else None
    own = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=") if key else None
    leaf = re.compile(rf"^\s*\"?{re.escape(parts[-1])}\"?\s*[.=]")
    inside, in_parent = False, len(parts) == 1  # a top-level name's parent is the root
    header_line = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip()[:1] == "[":
            inside = bool(header.match(line))
            in_parent = bool(parent and parent.match(line)) and not inside
            if inside:
                header_line = number
                if not key:
                    return number
            continue
        if inside and own and own.match(line):
            return number
        if in_parent and leaf.match(line) and (not key or key in line):
            return number
    return header_line


def validation_problems(
    exc: Any,
    *,
    path: str | Path,
    table: str,
    text: str | None = None,
    allowed: Iterable[str] | Mapping[str, Iterable[str]] = (),
    secrets: Mapping[str, str] | None = None,
    hint: str | None = None,
    table_depth: int = 0,
    single: Iterable[str] = (),
) -> list[Problem]:
    """The problems of one table's pydantic ``ValidationError``, each naming file, line,
    table and key; ``allowed`` (the table's keys) makes the hint and the guesses.

    ``table_depth`` > 0 validates a whole document: the first parts of an error's
    location (``systems``, ``NAME``) name the table, the rest the key; a table
    named in ``single`` (``matrix``) takes one part; ``allowed`` may then map each
    top-level name to the keys of its tables.
    """
    single = set(single)
    out: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = [str(p) for p in err.get("loc") or () if p != "function-after"]
        by_top = isinstance(allowed, Mapping)
        keys = sorted(allowed.get(loc[0], ()) if by_top and loc else () if by_top else allowed)
        shown_hint = hint or (f"allowed keys: {', '.join(keys)}" if keys else None)
        depth = 1 if table_depth and loc and loc[0] in single else table_depth
        where = ".".join([table, *loc[:depth]] if table else loc[:depth])
        loc = loc[depth:]
        key = ".".join(loc)
        kind = err.get("type")
        if kind == "extra_forbidden":
            guess = difflib.get_close_matches(loc[-1], keys, n=1) if loc else []
            message = "unknown key" + (f"; did you mean {guess[0]}?" if guess else "")
        elif kind == "missing":
            message = f"is required ({key} = ...)"
        elif kind in ("dict_type", "model_type") and not loc:
            message = "must be a table"
        else:
            message = f"{_reason(err)}, got {_shown(err.get('input'), secrets)}"
        line = toml_line(text, where, loc[0] if loc else "")
        out.append(config_problem(path, line, where, key, message, shown_hint))
        if len(out) >= MAX_TABLE_PROBLEMS:
            break
    return out


def _shown(value: Any, secrets: Mapping[str, str] | None) -> str:
    text = repr(value)
    for secret in sorted(secrets or {}, key=len, reverse=True):
        text = text.replace(secret, (secrets or {})[secret])
    text = redact_text(text)
    return text if len(text) <= 60 else text[:57] + "..."


def _reason(err: Any) -> str:
    message = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    message = message.replace("Input should be", "must be")
    return message[0].lower() + message[1:] if message else "invalid value"


def config_error(
    exc: Any,
    *,
    path: str | Path | None,
    table: str,
    allowed: Iterable[str] | Mapping[str, Iterable[str]] = (),
    secrets: Mapping[str, str] | None = None,
    table_depth: int = 0,
    single: Iterable[str] = (),
) -> ConfigFault:
    """A :class:`ConfigFault` holding :func:`validation_problems` of one table, one a line
    (``path`` None: a table given in code, named ``<table>``)."""
    problems = validation_problems(
        exc,
        path=path if path is not None else f"<{table}>",
        table=table,
        text=file_text(path),
        allowed=allowed,
        secrets=secrets,
        table_depth=table_depth,
        single=single,
    )
    return ConfigFault(problems)


def not_a_table(path: str | Path, table: str, allowed: Iterable[str] = ()) -> ConfigFault:
    """The fault of a ``[table]`` that is a value, not a table, worded like the others."""
    hint = f"allowed keys: {', '.join(sorted(allowed))}" if allowed else None
    return ConfigFault([table_problem(path, file_text(path), table, "", "must be a table", hint)])
