"""Progress of long work (indexing, embedding, searching, scoring, resampling), one way.

On a terminal: a live bar on stderr that disappears when the work is done. On a
pipe or in a CI log: a line on stderr every :data:`INTERVAL` seconds with the
count, the share done, the rate and the time left at that rate (the bar shows
it too), and a last line when the work took longer
than that. Nothing at all with ``--quiet`` (:func:`set_quiet`) or
``ASSAY_QUIET=1``. The library reports through :func:`progress`; a caller that
wants the counts itself passes ``on_advance``.

>>> with progress("indexing", total=3, unit="docs", enabled=False) as tick:
...     for _ in range(3):
...         tick()
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

__all__ = ["INTERVAL", "is_quiet", "progress", "set_quiet"]

#: Seconds between two progress lines on a pipe (``ASSAY_PROGRESS_INTERVAL`` overrides).
INTERVAL = 5.0
_state = {"quiet": False}


def set_quiet(quiet: bool = True) -> None:
    """Turn every progress display off (``--quiet``) or back on."""
    _state["quiet"] = bool(quiet)


def is_quiet() -> bool:
    """True with ``--quiet`` or ``ASSAY_QUIET`` set to 1/true/yes/on."""
    env = os.environ.get("ASSAY_QUIET", "").strip().lower() in ("1", "true", "yes", "on")
    return _state["quiet"] or env


class _Lines:
    """Progress as plain lines: every ``interval`` seconds, and once at the end."""

    def __init__(
        self, label: str, total: int | None, unit: str, stream: IO[str], interval: float
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.stream, self.interval = stream, interval
        self.done = 0
        self.start = self.last = time.monotonic()
        self.lock = threading.Lock()

    def advance(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
            now = time.monotonic()
            if now - self.last >= self.interval:
                self.last = now
                self._write(now)

    def close(self) -> None:
        now = time.monotonic()
        if now - self.start >= self.interval:
            self._write(now, final=True)

    def _write(self, now: float, final: bool = False) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        count = f"{self.done}/{self.total}" if self.total else str(self.done)
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        took = f" in {elapsed:.1f} s" if final else ""
        self.stream.write(
            f"{self.label}: {count} {self.unit}{share}{took}, {rate:,.1f} {self.unit}/s"
            f"{'' if final else _left(self.total, self.done, rate)}\n"
        )
        self.stream.flush()


def _left(total: int | None, done: int, rate: float) -> str:
    """``, about N s left`` at ``rate`` (the mean since the start), when it can be told."""
    if not total or done <= 0 or rate <= 0 or done >= total:
        return ""
    seconds = (total - done) / rate
    if seconds >= 90:
        return f", about {seconds / 60:,.0f} min left"
    return f", about {seconds:.0f} s left"


@contextmanager
def progress(
    label: str,
    total: int | None = None,
    *,
    unit: str = "items",
    enabled: bool = True,
    on_advance: Callable[[int], Any] | None = None,
    stream: IO[str] | None = None,
    interval: float | None = None,
) -> Iterator[Callable[..., None]]:
    """Report progress of ``label`` (``total`` steps of ``unit``); yields ``tick(n=1)``.

    A bar on a terminal, a line every few seconds elsewhere, nothing when
    ``enabled`` is false or output is quiet. ``on_advance(n)`` is called on
    every tick either way (a caller's own counter or bar).
    """
    out = stream if stream is not None else sys.stderr
    show = enabled and not is_quiet()
    if show and _is_terminal(out):
        with _bar(label, total, unit) as advance:
            yield _tick(advance, on_advance)
        return
    if not show:
        yield _tick(None, on_advance)
        return
    lines = _Lines(label, total, unit, out, _interval() if interval is None else interval)
    try:
        yield _tick(lines.advance, on_advance)
    finally:
        lines.close()


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("ASSAY_PROGRESS_INTERVAL", INTERVAL)))
    except ValueError:
        return INTERVAL


def _tick(
    advance: Callable[[int], None] | None, on_advance: Callable[[int], Any] | None
) -> Callable[..., None]:
    def tick(n: int = 1) -> None:
        if advance is not None:
            advance(n)
        if on_advance is not None:
            on_advance(n)

    return tick


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


@contextmanager
def _bar(label: str, total: int | None, unit: str) -> Iterator[Callable[[int], None]]:
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns: list[Any] = [TextColumn("[bold]{task.description}"), BarColumn()]
    columns += [MofNCompleteColumn(), TextColumn(escape(unit))]
    columns.append(TimeRemainingColumn() if total else TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(escape(label), total=total)
        lock = threading.Lock()

        def advance(n: int) -> None:
            with lock:
                bar.advance(task, n)

        yield advance
