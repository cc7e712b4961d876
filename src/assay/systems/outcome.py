"""What a run of a system produced: its failures, provenance and corpus version.

:class:`RunOutcome` is what :func:`assay.systems.runner.run_system` returns; it
is kept apart from the runner so readers of outcomes need not load the retry layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay import __version__
from assay.core.redact import redact
from assay.systems.base import System

if TYPE_CHECKING:
    from assay.runs.models import Run


@dataclass(frozen=True)
class QueryFailure:
    """A query whose every attempt failed: the last error and the number of attempts."""

    query_id: str
    error: str
    attempts: int


@dataclass
class RunOutcome:
    """A run with its provenance: failures, latency, versions, timestamps.

    ``run`` holds the successful queries only (a query that returned nothing
    has no rows but is not a failure). ``latency_ms`` has ``p50``, ``p95`` and
    ``mean`` over successful calls (``None`` when there were none).
    """

    run: Run
    failures: list[QueryFailure]
    latency_ms: dict[str, float | None]
    started: str
    finished: str
    system_name: str
    system_config: dict[str, Any]
    config_hash: str
    corpus_version: str | None
    judgments_version: str
    k: int
    queries: int
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def empty_ids(self) -> list[str]:
        """Ids of queries that succeeded with an empty result list."""
        return list(self.extra.get("empty_query_ids", []))

    @property
    def failed_ids(self) -> list[str]:
        """Ids of failed queries."""
        return [f.query_id for f in self.failures]

    def metadata(self) -> dict[str, Any]:
        """JSON-able provenance, as written to a run's sidecar file."""

        return {
            "system": self.system_name,
            "system_config": redact(self.system_config),
            "config_hash": self.config_hash,
            "corpus_version": self.corpus_version,
            "judgments_version": self.judgments_version,
            "k": self.k,
            "queries": self.queries,
            "succeeded": self.queries - len(self.failures),
            "failures": [
                {"query_id": f.query_id, "error": f.error, "attempts": f.attempts}
                for f in self.failures
            ],
            "empty_query_ids": list(self.empty_ids),
            "latency_ms": dict(self.latency_ms),
            "started": self.started,
            "finished": self.finished,
            "cached": self.cached,
            "assay_version": __version__,
            **{k: v for k, v in self.extra.items() if k != "empty_query_ids"},
        }


def corpus_version(system: System) -> str | None:
    """The version of the corpus a system indexes, if it has one.

    Read from its ``corpus`` (keyword), else its config's ``corpus_version``
    (bm25, vector), else from the systems it fuses (hybrid): their version, or
    theirs joined by ``+`` when they index different corpora.
    """
    version = getattr(getattr(system, "corpus", None), "version", None)
    if version is not None:
        return str(version)
    try:
        config = system.config
    except Exception:  # a user system's config is its own business
        config = None
    given = config.get("corpus_version") if isinstance(config, dict) else None
    if isinstance(given, str) and given != "unknown":
        return given
    members = getattr(system, "systems", None)
    if isinstance(members, list | tuple) and members:
        versions = [corpus_version(member) for member in members]
        if all(versions):
            return "+".join(sorted(set(versions)))  # type: ignore[arg-type]
    return None
