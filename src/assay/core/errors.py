"""The one error tree of assay, and the problems input errors carry.

Every error assay raises on purpose is an :class:`AssayError`; the CLI turns
each into a message on stderr and the class's ``exit_code``, never a
traceback::

    AssayError            exit 2  base class; catch it to catch everything assay raises
    ├── UsageError        exit 2  a bad argument: unknown metric, k below 1, unknown
    │                             system, swapped arguments, results that cannot be paired
    │                             (other judgment-set version or policy). ``parameter``
    │                             names the library parameter at fault; the CLI names
    │                             the matching flag instead (``missing`` -> ``--missing``)
    ├── InputError        exit 2  problems in input files, each a :class:`Problem` naming
    │                             file, line, field and how to fix it
    └── SystemCallError   exit 1  a call to the system under test failed (timeout, HTTP
                                  error, bad payload); the runner records the query as
                                  failed, so it only surfaces when nothing could be scored

A :class:`Problem` is one thing wrong with one place in one file. Loaders collect
problems in a :class:`ProblemLog` (at most :data:`MAX_PROBLEMS`) and raise a
:class:`InputError` carrying all of them, so a user fixes a file in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Problem:
    """One defect in an input file.

    ``line`` is the 1-based physical line (a CSV header is line 1); ``None`` when
    the problem concerns the file as a whole. ``field`` names the column or JSON
    key at fault, ``hint`` says how to fix it.
    """

    path: str
    line: int | None
    message: str
    field: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        text = f"{where}: {self.message}"
        if self.field:
            text = f"{where}: [{self.field}] {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class AssayError(Exception):
    """Base class of every error assay raises on purpose (CLI exit code 2)."""

    exit_code = 2


class UsageError(AssayError):
    """A bad argument: an unknown metric name, a k below 1, an unknown system.

    ``parameter`` names the library parameter at fault. Library messages write
    parameter names in backticks (```missing```); the CLI rewrites them as flags.
    """

    def __init__(self, message: str, parameter: str | None = None) -> None:
        self.parameter = parameter
        super().__init__(message)


class InputError(AssayError):
    """One or more problems found in input files."""

    def __init__(self, problems: list[Problem], truncated: bool = False) -> None:
        self.problems = list(problems)
        self.truncated = truncated
        lines = [str(p) for p in self.problems]
        if truncated:
            lines.append(f"... stopped after {len(self.problems)} problems")
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its problems (a Ray worker's error reaches the driver whole)."""
        return (type(self), (self.problems, self.truncated), self.__dict__)


class SystemCallError(AssayError):
    """A call to the system under test failed; the runner records the query as failed."""

    exit_code = 1


#: Every error type assay raises on purpose (each is exported by ``assay``).
ERROR_TYPES: tuple[type[AssayError], ...] = (AssayError, UsageError, InputError, SystemCallError)


class _StopCollecting(Exception):
    """Raised inside a loader when the problem log is full."""


@dataclass
class ProblemLog:
    """Collects problems for one or more files, stopping at ``limit``.

    Use :meth:`add` while parsing; it raises an internal signal once the limit is
    reached, which :meth:`collecting` turns into an :class:`InputError`.
    """

    path: str
    limit: int = MAX_PROBLEMS
    problems: list[Problem] = field(default_factory=list)
    truncated: bool = False

    def add(
        self,
        line: int | None,
        message: str,
        field: str | None = None,
        hint: str | None = None,
        path: str | None = None,
    ) -> None:
        """Record a problem; stop the loader when the limit is reached."""
        self.problems.append(Problem(path or self.path, line, message, field, hint))
        if len(self.problems) >= self.limit:
            self.truncated = True
            raise _StopCollecting

    def for_path(self, path: str) -> _PathView:
        """A view that records into this log, naming ``path`` (another file) by default."""
        return _PathView(self, path)

    def raise_if_any(self) -> None:
        """Raise :class:`InputError` when any problem was recorded."""
        if self.problems:
            raise InputError(self.problems, self.truncated)

    def __bool__(self) -> bool:
        return bool(self.problems)


@dataclass(frozen=True)
class _PathView:
    """What :meth:`ProblemLog.for_path` returns: ``add`` names another file."""

    log: ProblemLog
    path: str

    def add(
        self,
        line: int | None,
        message: str,
        field: str | None = None,
        hint: str | None = None,
        path: str | None = None,
    ) -> None:
        """Record a problem in the shared log, naming ``path`` by default."""
        self.log.add(line, message, field=field, hint=hint, path=path or self.path)


class collecting:
    """Context manager: run a loader body with a :class:`ProblemLog`.

    >>> with collecting("qrels.jsonl") as log:
    ...     log.add(3, "blank line", hint="remove it")  # doctest: +SKIP
    """

    def __init__(self, path: str | Path, limit: int = MAX_PROBLEMS) -> None:
        self.log = ProblemLog(str(path), limit)

    def __enter__(self) -> ProblemLog:
        return self.log

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is _StopCollecting or exc_type is None:
            self.log.raise_if_any()
            return exc_type is _StopCollecting
        return False
