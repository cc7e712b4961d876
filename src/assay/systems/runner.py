"""Run a system over every query of a judgment set and record what happened.

Queries go to the system in batches: through ``system.search_many(texts, k)``
when it has one (BM25, vector, hybrid and HTTP systems do), else through
``system.search(text, k)``, ``concurrency`` calls at a time. This module is the
one retry layer (:mod:`assay.core.retry`): a call that fails for a transient reason
(a :class:`~assay.core.retry.Transient`, or any exception a Python system raises) is
retried with backoff and jitter, honouring ``Retry-After``; a
:class:`~assay.systems.base.SystemError_` that is not transient (HTTP 404, a
bad payload) is final at once. When every attempt fails the query is recorded
in :attr:`RunOutcome.failures`: reported, never scored as an empty list. After
``max_consecutive_failures`` failed queries in a row a circuit breaker stops
the run with :class:`SystemUnavailable`. Latency, timestamps, the system's
(redacted) config and hash, the corpus and judgment-set versions travel with
the run so that a result can be traced to exactly what produced it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least
from assay.core.errors import AssayError, UsageError
from assay.core.limits import retries as checked_retries
from assay.core.progress import progress as report
from assay.core.redact import redact_text
from assay.core.retry import (
    CircuitBreaker,
    CircuitOpen,
    RetryPolicy,
    Transient,
    call_many_with_retries,
)
from assay.executors import current
from assay.runs.checks import RankingCheck
from assay.runs.models import Run
from assay.systems.base import Hit, System, SystemError_, config_hash
from assay.systems.outcome import QueryFailure, RunOutcome, corpus_version

if TYPE_CHECKING:
    from assay.judgments.models import JudgmentSet
    from assay.systems.cache import RunCache


class SystemUnavailable(AssayError):
    """The circuit breaker stopped a run: too many queries failed in a row (exit 1)."""

    exit_code = 1


#: Failed queries in a row after which a run stops (``--max-consecutive-failures``).
DEFAULT_MAX_CONSECUTIVE_FAILURES = 5
#: The breaker also counts attempts: ``max_consecutive_failures`` times this many failed
#: attempts in a row stop a run too, however many ``retries`` each query may have.
ATTEMPTS_PER_FAILURE = 3


def retry_policy_for(
    system: System, retries: int | None = None, backoff: float | None = None
) -> RetryPolicy:
    """The retry policy of a run: the system's own (``retry_policy``) with overrides."""
    base = getattr(system, "retry_policy", None)
    if not isinstance(base, RetryPolicy):
        base = RetryPolicy()
    changes: dict[str, Any] = {}
    if retries is not None:
        changes["retries"] = checked_retries(retries, "`retries`")
    if backoff is not None:
        changes["backoff"] = backoff
    try:
        return replace(base, **changes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_key(
    system: System,
    judgments: JudgmentSet,
    k: int,
    include_no_answer: bool = True,
    *,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The run cache's key of ``system`` over ``judgments`` at depth ``k``: what decides
    its run (config hash, corpus and judgment-set versions, k, no-answer queries run)."""
    return dict(
        config_hash=config_hash(system.config if config is None else config),
        corpus_version=corpus_version(system),
        judgments_version=judgments.version,
        k=k,
        include_no_answer=include_no_answer,
    )


def run_system(
    system: System,
    judgments: JudgmentSet,
    k: int = 100,
    *,
    include_no_answer: bool = True,
    retries: int | None = None,
    backoff: float | None = None,
    concurrency: int | None = None,
    progress: bool = True,
    cache: RunCache | None = None,
    max_consecutive_failures: int = DEFAULT_MAX_CONSECUTIVE_FAILURES,
    on_progress: Callable[[int], Any] | None = None,
) -> RunOutcome:
    """Send every query of ``judgments`` to ``system`` and collect a run.

    No-answer queries are run too (so abstention can be scored) unless
    ``include_no_answer`` is false. ``retries`` and ``backoff`` override the
    system's ``retry_policy`` (default: 2 retries, 0.5 s doubling, jittered).
    ``concurrency`` calls of ``search`` run at a time when a system has no
    ``search_many``; by default the system's own ``concurrency`` or 1. Systems
    with a ``prepare()`` method (index building) are prepared before the first
    timed call. ``max_consecutive_failures`` failed queries in a row raise
    :class:`SystemUnavailable` (0 never stops). With a ``cache``, an unchanged
    system (same config hash, corpus version, judgment-set version and k) is
    not called again; runs with failures are never cached. ``on_progress(n)``
    is called as ``n`` more queries finish (a caller's own progress display).
    """

    k = at_least("k", k)
    if concurrency is None:
        concurrency = int(getattr(system, "concurrency", 1) or 1)
    concurrency = at_least("concurrency", concurrency)
    at_least("max_consecutive_failures", max_consecutive_failures, 0)
    policy = retry_policy_for(system, retries, backoff)
    cfg = system.config
    key = run_key(system, judgments, k, include_no_answer, config=cfg)
    chash, cversion = key["config_hash"], key["corpus_version"]
    ids = judgments.query_ids if include_no_answer else judgments.answerable_ids
    cacheable = cache is not None and getattr(system, "cacheable", True)
    if cacheable:
        hit = cache.get(key, name=system.name)  # type: ignore[union-attr]
        if hit is not None:
            return hit
    texts = _texts(judgments, ids)
    prepare = getattr(system, "prepare", None)
    if callable(prepare):
        prepare()
    started = _now()
    calls = _Calls(system, k, concurrency, policy, CircuitBreaker(max_consecutive_failures))
    over_before = int(getattr(system, "over_depth", 0) or 0)
    _drive(calls, ids, texts, progress, f"{system.name}", on_progress)
    outcome = _outcome(calls, ids, started, cfg, chash, cversion, judgments.version)
    over = int(getattr(system, "over_depth", 0) or 0) - over_before
    if over:  # a Python system returned more than k results: cut to k, counted here
        outcome.extra["over_depth_queries"] = over
        run = outcome.run
        run.metadata["over_depth_queries"] = over
    if cacheable and not outcome.failures:
        cache.put(key, outcome)  # type: ignore[union-attr]
    return outcome


def _outcome(
    calls: _Calls,
    ids: list[str],
    started: str,
    cfg: dict[str, Any],
    chash: str,
    cversion: str | None,
    jversion: str,
) -> RunOutcome:

    finished = _now()
    results = calls.results
    ordered = {qid: [(h.doc_id, h.score) for h in results[qid]] for qid in ids if qid in results}
    scored = any(s is not None for hits in ordered.values() for _, s in hits)
    if not scored:
        ordered = {q: [d for d, _ in hits] for q, hits in ordered.items()}
    run = Run.from_dict(ordered, name=calls.system.name)
    outcome = RunOutcome(
        run=run,
        failures=[calls.failures[q] for q in ids if q in calls.failures],
        latency_ms=_latency(calls.latencies),
        started=started,
        finished=finished,
        system_name=calls.system.name,
        system_config=cfg,
        config_hash=chash,
        corpus_version=cversion,
        judgments_version=jversion,
        k=calls.k,
        queries=len(ids),
    )
    outcome.extra["empty_query_ids"] = [q for q in ids if q in results and not results[q]]
    outcome.extra["latency_basis"] = calls.latency_basis
    run.metadata.update(outcome.metadata())
    return outcome


def _texts(judgments: JudgmentSet, ids: list[str]) -> dict[str, str]:
    texts = judgments.queries["text"].astype(str).to_dict()
    blank = [q for q in ids if not texts.get(q, "").strip()]
    if blank:
        where = judgments.path or judgments.name
        raise UsageError(
            f"{where}: {len(blank)} of {len(ids)} queries have no text (e.g. {blank[0]!r}), "
            "so a system cannot be asked them; TREC qrels carry no texts: pass --queries "
            "FILE (TSV id<TAB>text or JSONL)"
        )
    return texts


class _Calls:
    """Asks a system batches of queries with retries; keeps results, failures, latency."""

    def __init__(
        self,
        system: System,
        k: int,
        concurrency: int,
        policy: RetryPolicy,
        breaker: CircuitBreaker,
    ) -> None:
        self.system, self.k, self.concurrency = system, k, concurrency
        self.policy, self.breaker = policy, breaker
        self.native = callable(getattr(system, "search_many", None))
        if not self.native:
            self.batch_size = concurrency
        elif hasattr(system, "concurrency"):  # a remote service: small batches, fast breaker
            self.batch_size = concurrency * 2
        else:
            self.batch_size = 64
        self.latency_basis = "batch time / queries" if self.native else "per call"
        self.results: dict[str, list[Hit]] = {}
        self.failures: dict[str, QueryFailure] = {}
        self.latencies: list[float] = []
        self.failed_attempts = 0  # in a row, across queries and retries
        self.attempt_limit = breaker.threshold * ATTEMPTS_PER_FAILURE
        #: on a remote worker: each attempt's failure (``None``: success), for the driver
        self.outcomes: list[str | None] | None = None

    def _stopped(self, exc: Any) -> SystemUnavailable:
        return SystemUnavailable(
            f"system {self.system.name!r}: stopped after {exc} "
            f"({len(self.failures)} queries failed, {len(self.results)} succeeded); "
            "check that the system is up and its URL and credentials are right, "
            "or raise --max-consecutive-failures (0 never stops)"
        )

    def batch(self, qids: list[str], texts: dict[str, str], answers: Any = None) -> None:
        """Ask every query of ``qids`` (with retries), or record the ``answers`` a remote
        executor got for them (:meth:`ask`); stop the run when the breaker opens."""
        try:
            self.breaker.check()
        except CircuitOpen as exc:
            raise self._stopped(exc) from None
        if answers is None:
            answers = self.ask(qids, texts)
        for qid, (answer, attempts) in zip(qids, answers, strict=True):
            if isinstance(answer, BaseException):
                message = redact_text(_describe(answer))
                self.failures[qid] = QueryFailure(qid, message, attempts)
                self.breaker.failure(message)
            else:
                self.results[qid] = answer
                self.breaker.success()

    def ask(self, qids: list[str], texts: dict[str, str]) -> list[tuple[Any, int]]:
        """Per query of ``qids``: (hits or the last error, attempts), with retries."""
        return call_many_with_retries(lambda b: self._counted(b, texts), qids, self.policy)

    def _counted(self, qids: list[str], texts: dict[str, str]) -> list[list[Hit] | BaseException]:
        """:meth:`_ask`, counting failed attempts in a row; stop the run past the limit."""
        out = self._ask(qids, texts)
        for item in out:
            self.count_attempt(item if isinstance(item, BaseException) else None)
        return out

    def count_attempt(self, failure: BaseException | str | None) -> None:
        """One attempt in the count of failed attempts in a row (``None``: it succeeded);
        stop the run past the limit. A copy asking for a remote executor only notes each
        attempt in :attr:`outcomes` (redacted): the driver counts them in order, as one
        process would have, across every task (:meth:`replay`)."""
        if self.outcomes is not None:
            self.outcomes.append(None if failure is None else _said(failure))
            return
        if failure is None:
            self.failed_attempts = 0
            return
        self.failed_attempts += 1
        if 0 < self.attempt_limit <= self.failed_attempts:
            raise self._stopped(
                f"{self.failed_attempts} failed attempts in a row; the last: {_said(failure)}"
            )

    def replay(self, outcomes: list[str | None]) -> None:
        """Count the attempts a task made (its :attr:`outcomes`), here, in order."""
        for failure in outcomes:
            self.count_attempt(failure)

    def _ask(self, qids: list[str], texts: dict[str, str]) -> list[list[Hit] | BaseException]:
        batch = [texts[q] for q in qids]
        if self.native:
            return self._many(batch)
        if self.concurrency == 1 or len(batch) == 1:
            return [self._one(text) for text in batch]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(batch))) as pool:
            return list(pool.map(self._one, batch))

    def _many(self, batch: list[str]) -> list[list[Hit] | BaseException]:
        t0 = time.perf_counter()
        raw: list[Any]
        try:
            raw = list(self.system.search_many(batch, self.k))  # type: ignore[attr-defined]
        except AssayError as exc:
            if not isinstance(exc, SystemError_):
                raise  # a usage error (a missing environment variable) stops the run
            raw = [exc] * len(batch)
        except Exception as exc:
            raw = [_transient(exc)] * len(batch)
        if len(raw) != len(batch):
            bad = SystemError_(f"search_many answered {len(raw)} of {len(batch)} queries")
            raw = [bad] * len(batch)
        ms = (time.perf_counter() - t0) * 1000.0 / max(1, len(batch))
        out = [self._checked(item) for item in raw]
        self.latencies.extend(ms for item in out if not isinstance(item, BaseException))
        return out

    def _one(self, text: str) -> list[Hit] | BaseException:
        t0 = time.perf_counter()
        try:
            hits = self.system.search(text, self.k)
        except AssayError as exc:
            if not isinstance(exc, SystemError_):
                raise  # a usage error (a missing environment variable) stops the run
            return exc
        except Exception as exc:
            return _transient(exc)
        out = self._checked(hits)
        if not isinstance(out, BaseException):
            self.latencies.append((time.perf_counter() - t0) * 1000.0)
        return out

    def _checked(self, item: Any) -> list[Hit] | BaseException:
        if isinstance(item, BaseException):
            return item if isinstance(item, Transient | SystemError_) else _transient(item)
        try:
            return _check(item, self.k)
        except SystemError_ as exc:
            return exc


def _transient(exc: BaseException) -> Transient:
    """Any failure of a Python system counts as transient (worth another attempt)."""
    return Transient(f"{type(exc).__name__}: {exc}")


def _said(failure: BaseException | str) -> str:
    """A failed attempt as the stop message names it (redacted)."""
    return failure if isinstance(failure, str) else redact_text(_describe(failure))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemError_ | Transient):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _check(hits: list[Hit], k: int) -> list[Hit]:
    """Validate one result list: unique ids, finite scores, all or none scored; cut to k."""

    hits = list(hits)[:k]
    check = RankingCheck()
    for h in hits:
        if not isinstance(h, Hit):
            raise SystemError_(f"search returned {type(h).__name__}, expected Hit")
        fault = check.add(None, h.doc_id, h.score)
        if fault is not None:
            raise SystemError_(fault.message)
    return hits


def _drive(
    calls: _Calls,
    ids: list[str],
    texts: dict[str, str],
    progress: bool,
    label: str,
    on_progress: Callable[[int], Any] | None = None,
) -> None:
    """Ask ``ids`` batch by batch, reporting progress (see :mod:`assay.core.progress`); the
    executor in force (:mod:`assay.executors`) decides where the batches are asked."""

    with report(
        label, total=len(ids), unit="queries", enabled=progress, on_advance=on_progress
    ) as tick:
        size = max(1, calls.batch_size)
        chunks = [ids[start : start + size] for start in range(0, len(ids), size)]
        for chunk, answers in current().system_batches(calls, chunks, texts):
            calls.batch(chunk, texts, answers)
            tick(len(chunk))


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
