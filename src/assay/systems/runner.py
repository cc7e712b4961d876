"""Run a system over every query of a judgment set and record what happened.

Each query is sent to ``system.search(text, k)``. A call that raises is
retried with exponential backoff; when every attempt fails the query is
recorded in :attr:`RunOutcome.failures` — reported, never scored as an empty
list. Latency, timestamps, the system's (redacted) config and hash, the corpus
and judgment-set versions travel with the run so that a result can be traced
to exactly what produced it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError
from assay.systems.base import Hit, System, SystemError_, config_hash

if TYPE_CHECKING:
    from assay.judgments.models import JudgmentSet
    from assay.runs.models import Run
    from assay.systems.cache import RunCache


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
        from assay import __version__

        return {
            "system": self.system_name,
            "system_config": self.system_config,
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
    """The version of the corpus a system indexes, if it has one."""
    corpus = getattr(system, "corpus", None)
    return getattr(corpus, "version", None)


def run_system(
    system: System,
    judgments: JudgmentSet,
    k: int = 100,
    *,
    include_no_answer: bool = True,
    retries: int = 2,
    backoff: float = 0.5,
    concurrency: int | None = None,
    progress: bool = True,
    cache: RunCache | None = None,
    on_progress: Callable[[int], Any] | None = None,
) -> RunOutcome:
    """Send every query of ``judgments`` to ``system`` and collect a run.

    No-answer queries are run too (so abstention can be scored) unless
    ``include_no_answer`` is false. A failing call is retried ``retries``
    times, waiting ``backoff * 2**attempt`` seconds. ``concurrency > 1`` uses a
    thread pool; by default a system's own ``concurrency`` attribute (HTTP
    adapters) or 1. Systems with a ``prepare()`` method (index building) are
    prepared before the first timed call. ``on_progress(n)`` is called as ``n`` more
    queries finish (a caller's own progress display). With a ``cache``, an
    unchanged system (same config hash, corpus version, judgment-set version
    and k) is not called again; runs with failures are never cached.
    """
    if k < 1:
        raise UsageError(f"k must be at least 1, got {k}")
    if concurrency is None:
        concurrency = int(getattr(system, "concurrency", 1) or 1)
    if retries < 0 or concurrency < 1 or backoff < 0:
        raise UsageError("retries and backoff must be >= 0 and concurrency >= 1")
    cfg = system.config
    chash = config_hash(cfg)
    cversion = corpus_version(system)
    ids = judgments.query_ids if include_no_answer else judgments.answerable_ids
    key = dict(
        config_hash=chash,
        corpus_version=cversion,
        judgments_version=judgments.version,
        k=k,
        include_no_answer=include_no_answer,
    )
    cacheable = cache is not None and getattr(system, "cacheable", True)
    if cacheable:
        hit = cache.get(key, name=system.name)  # type: ignore[union-attr]
        if hit is not None:
            return hit
    texts = judgments.queries["text"].astype(str).to_dict()
    blank = [q for q in ids if not texts.get(q, "").strip()]
    if blank:
        where = judgments.path or judgments.name
        raise UsageError(
            f"{where}: {len(blank)} of {len(ids)} queries have no text (e.g. {blank[0]!r}), "
            "so a system cannot be asked them; TREC qrels carry no texts: pass --queries "
            "FILE (TSV id<TAB>text or JSONL)"
        )
    prepare = getattr(system, "prepare", None)
    if callable(prepare):
        prepare()
    started = _now()
    results: dict[str, list[Hit]] = {}
    failures: dict[str, QueryFailure] = {}
    latencies: list[float] = []

    def one(qid: str) -> None:
        hits, error, attempts, ms = _call(system, texts[qid], k, retries, backoff)
        if error is None:
            results[qid] = hits
            latencies.append(ms)
        else:
            failures[qid] = QueryFailure(qid, error, attempts)

    _drive(one, ids, concurrency, progress, f"{system.name}", on_progress)
    finished = _now()
    from assay.runs.models import Run

    ordered = {qid: [(h.doc_id, h.score) for h in results[qid]] for qid in ids if qid in results}
    scored = any(s is not None for hits in ordered.values() for _, s in hits)
    if not scored:
        ordered = {q: [d for d, _ in hits] for q, hits in ordered.items()}
    run = Run.from_dict(ordered, name=system.name)
    outcome = RunOutcome(
        run=run,
        failures=[failures[q] for q in ids if q in failures],
        latency_ms=_latency(latencies),
        started=started,
        finished=finished,
        system_name=system.name,
        system_config=cfg,
        config_hash=chash,
        corpus_version=cversion,
        judgments_version=judgments.version,
        k=k,
        queries=len(ids),
    )
    outcome.extra["empty_query_ids"] = [q for q in ids if q in results and not results[q]]
    run.metadata.update(outcome.metadata())
    if cacheable and not outcome.failures:
        cache.put(key, outcome)  # type: ignore[union-attr]
    return outcome


def _call(
    system: System, text: str, k: int, retries: int, backoff: float
) -> tuple[list[Hit], str | None, int, float]:
    """One query with retries: (hits, error or None, attempts, latency of the last call)."""
    error = None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        t0 = time.perf_counter()
        try:
            hits = _check(system.search(text, k), k)
        except SystemError_ as exc:  # a failure the adapter already explained
            error = str(exc)
            continue
        except Exception as exc:  # any other failure of the system is a failed attempt
            error = f"{type(exc).__name__}: {exc}"
            continue
        return hits, None, attempt + 1, (time.perf_counter() - t0) * 1000.0
    return [], error, retries + 1, 0.0


def _check(hits: list[Hit], k: int) -> list[Hit]:
    """Validate one result list: unique ids, finite scores, all or none scored; cut to k."""
    from assay.systems.base import SystemError_

    hits = list(hits)[:k]
    seen: set[str] = set()
    for h in hits:
        if not isinstance(h, Hit):
            raise SystemError_(f"search returned {type(h).__name__}, expected Hit")
        if h.doc_id in seen:
            raise SystemError_(f"doc id {h.doc_id!r} returned twice")
        seen.add(h.doc_id)
        if h.score is not None and not math.isfinite(h.score):
            raise SystemError_(f"score of {h.doc_id!r} is {h.score}")
    if len({h.score is None for h in hits}) > 1:
        raise SystemError_("some results have a score and some do not")
    return hits


def _drive(
    task: Callable[[str], None],
    ids: list[str],
    concurrency: int,
    progress: bool,
    label: str,
    on_progress: Callable[[int], Any] | None = None,
) -> None:
    """Run ``task`` over ``ids`` (threads when concurrency > 1), reporting progress
    (see :mod:`assay.progress`); ``on_progress(n)`` is called as queries finish."""
    from assay.progress import progress as report

    with report(
        label, total=len(ids), unit="queries", enabled=progress, on_advance=on_progress
    ) as tick:
        if concurrency == 1:
            for qid in ids:
                task(qid)
                tick()
            return
        from concurrent.futures import ThreadPoolExecutor, as_completed

        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = [pool.submit(task, qid) for qid in ids]
            for fut in as_completed(futures):
                fut.result()
                tick()


def _latency(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "mean": None}
    import numpy as np

    arr = np.asarray(values, dtype=float)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
        "mean": round(float(arr.mean()), 3),
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
