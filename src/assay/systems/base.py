"""The system-under-test protocol: ``(query_text, k) -> ranked hits``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

# A failed system call (timeout, HTTP error, bad payload): the query is recorded as failed.
from assay.core.errors import SystemCallError as SystemError_
from assay.core.hashing import content_version
from assay.runs.checks import item_parts, missing_doc
from assay.systems.usercode import DEFAULT_TIMEOUT, call_bounded, first_items


@dataclass(frozen=True)
class Hit:
    """One retrieved document: its id and the system's score (None if unscored)."""

    doc_id: str
    score: float | None = None


@runtime_checkable
class System(Protocol):
    """Anything that maps a query text and a depth ``k`` to ranked hits.

    ``name`` labels runs; ``config`` is the JSON-serialisable configuration
    (secrets redacted) whose hash keys the run cache.
    """

    name: str

    @property
    def config(self) -> dict[str, Any]:
        """JSON-able configuration, secrets redacted; its hash keys the run cache."""
        ...

    def search(self, query: str, k: int) -> list[Hit]:
        """The top ``k`` hits for ``query``, best first; raise on failure."""
        ...


def config_hash(config: dict[str, Any]) -> str:
    """Stable short hash of a configuration: ``sha256:`` and 16 hex digits."""
    return content_version(config)


def coerce_hits(items: Sequence[Any]) -> list[Hit]:
    """Turn what a user's search function returned into hits.

    Accepts doc ids, ``(doc_id, score)`` pairs, dicts with ``doc_id`` (or ``id``)
    and optional ``score``, and :class:`Hit` objects.
    """
    out: list[Hit] = []
    for item in items:
        if isinstance(item, Hit):
            out.append(item)
            continue
        doc, score = item_parts(item)
        if doc is None:
            raise SystemError_(missing_doc(item).message)
        out.append(Hit(str(doc), None if score is None else float(score)))
    return out


@dataclass
class FunctionSystem:
    """Wrap a plain ``(query_text, k) -> results`` callable as a :class:`System`."""

    function: Callable[[str, int], Sequence[Any]]
    name: str = "function"

    @property
    def config(self) -> dict[str, Any]:
        """The function's qualified name."""
        fn = self.function
        return {
            "type": "python",
            "function": f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}",
        }

    def search(self, query: str, k: int) -> list[Hit]:
        """Call the function (bounded: :mod:`assay.systems.usercode`) and coerce its results."""

        def call() -> list[Any]:
            return first_items(self.function(query, k), k)[0]

        what = f"function {self.config['function']}"
        return coerce_hits(call_bounded(call, timeout=DEFAULT_TIMEOUT, what=what))
