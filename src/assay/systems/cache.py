"""A cache of complete runs, keyed by what determines them.

The key is (system config hash, corpus version, judgment-set version, k,
whether no-answer queries were run). Re-running an unchanged system over an
unchanged judgment set costs nothing. Runs with failed queries are never
stored. The directory is ``$ASSAY_CACHE_DIR`` or ``.assay/cache/runs`` under
the working directory; entries are JSON files written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.textio import parse_json

if TYPE_CHECKING:
    from assay.systems.runner import RunOutcome

#: Environment variable naming the cache directory.
CACHE_ENV = "ASSAY_CACHE_DIR"
DEFAULT_DIR = Path(".assay") / "cache" / "runs"
_SCHEMA = 1


def default_cache_dir() -> Path:
    """``$ASSAY_CACHE_DIR`` if set, else ``.assay/cache/runs``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else DEFAULT_DIR


def cache_subdir(kind: str, base_dir: str | Path | None = None) -> Path:
    """Where the built-in systems keep ``kind`` (``bm25`` indexes, ``embeddings``):
    ``$ASSAY_CACHE_DIR/<kind>`` if set, else ``<base_dir>/.assay/cache/<kind>``
    (``base_dir``: the working directory, or the folder of an assay.toml)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env) / kind
    return Path(base_dir or ".") / ".assay" / "cache" / kind


class RunCache:
    """Stores and finds :class:`RunOutcome` objects by their key."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    @staticmethod
    def digest(key: dict[str, Any]) -> str:
        """File name stem of a key: 32 hex digits of its SHA-256."""
        blob = json.dumps({"schema": _SCHEMA, **key}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def path(self, key: dict[str, Any]) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / f"{self.digest(key)}.json"

    def get(self, key: dict[str, Any], *, name: str | None = None) -> RunOutcome | None:
        """The cached outcome of ``key`` (marked ``cached``), or ``None``.

        An unreadable entry is treated as a miss.
        """
        from assay.runs.models import Run
        from assay.systems.runner import RunOutcome

        p = self.path(key)
        try:
            data = parse_json(p.read_text(encoding="utf-8"))
            if data.get("key") != json.loads(json.dumps(key, default=str)):
                return None
            meta = data["outcome"]
            ranking = {
                q: [d if s is None else (d, s) for d, s in items]
                for q, items in data["run"].items()
            }
            run_name = name or meta["system"]
            run = Run.from_dict(ranking, name=run_name)
            outcome = RunOutcome(
                run=run,
                failures=[],
                latency_ms=meta["latency_ms"],
                started=meta["started"],
                finished=meta["finished"],
                system_name=run_name,
                system_config=meta["system_config"],
                config_hash=meta["config_hash"],
                corpus_version=meta["corpus_version"],
                judgments_version=meta["judgments_version"],
                k=int(meta["k"]),
                queries=int(meta["queries"]),
                cached=True,
                extra={"empty_query_ids": list(meta.get("empty_query_ids", []))},
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        run.metadata.update(outcome.metadata())
        return outcome

    def put(self, key: dict[str, Any], outcome: RunOutcome) -> Path | None:
        """Store ``outcome`` under ``key``; outcomes with failures are not stored."""
        if outcome.failures:
            return None
        ranking: dict[str, list[list[Any]]] = {}
        scored = outcome.run.has_scores
        for q, d, s in zip(
            outcome.run.frame["query_id"].astype(str),
            outcome.run.frame["doc_id"].astype(str),
            outcome.run.frame["score"],
            strict=True,
        ):
            ranking.setdefault(q, []).append([d, float(s) if scored else None])
        payload = {
            "key": json.loads(json.dumps(key, default=str)),
            "outcome": outcome.metadata(),
            "run": ranking,
        }
        from assay.fileio import write_text_atomic
        from assay.redact import redact

        return write_text_atomic(self.path(key), json.dumps(redact(payload), separators=(",", ":")))

    def clear(self) -> int:
        """Delete every entry; returns how many were removed."""
        n = 0
        if self.directory.is_dir():
            for entry in self.directory.glob("*.json"):
                entry.unlink(missing_ok=True)
                n += 1
        return n
