"""One source path: a run file with its sidecar, a result file or a live system -> a run.

Every procedure (evaluate, compare, gate, verify-suite), through the library or
the command line, turns what it is given into a :class:`Source` here, so a run
reads the same way through every door: its sidecar's failed queries are
reported (never scored as zeros), its empty result lists count as answered, a
run made on another judgment-set version is refused, and a live system goes
through the runner and, when asked, the run cache (:mod:`assay.systems.cache`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from assay.core.bounds import at_least
from assay.core.errors import InputError, Problem, UsageError
from assay.executors.shards import is_sharded, load_sharded_run
from assay.io.formats import is_result_file as holds
from assay.results.models import Failure, Latency, read_result_file
from assay.runs.blocks import RunBlocks
from assay.runs.io import load_run
from assay.runs.models import Run
from assay.runs.sidecar import provenance_note, read_sidecar, sidecar_path
from assay.systems.base import FunctionSystem, System
from assay.systems.cache import RunCache
from assay.systems.runner import run_system

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.results.models import EvaluationResult
    from assay.runs.blocks import RunBlocks
    from assay.runs.models import Run
    from assay.systems.cache import RunCache


class RunProvenance(BaseModel):
    """Where a run came from and what happened while it was made.

    ``queries_asked`` is set for live runs (every query was asked, so a query
    without rows returned an empty list); for run files the sidecar's
    ``empty_query_ids`` say which queries returned nothing.
    """

    name: str
    path: str | None = None
    system: dict[str, Any] | None = None
    config_hash: str | None = None
    corpus_version: str | None = None
    judgments_version: str | None = None
    k: int | None = None
    latency_ms: Latency | None = None
    failures: list[Failure] = Field(default_factory=list)
    empty_query_ids: list[str] = Field(default_factory=list)
    queries_asked: int | None = None
    cached: bool = False
    warnings: list[str] = Field(default_factory=list)

    @property
    def failed_query_ids(self) -> list[str]:
        """Ids of the queries whose system call failed."""
        return [f.query_id for f in self.failures]


@dataclass(frozen=True)
class Source:
    """A run ready to score with its provenance, or an already scored result file."""

    run: Run | None
    provenance: RunProvenance
    result: EvaluationResult | None = None


class PendingRun:
    """A run file being read on a background thread while the judgments load.

    Parsing a large run is Arrow work that releases the GIL, and loading the
    judgments is mostly Python: reading both at once saves their overlap.
    :func:`load_source` takes it in place of the path; the run's errors are
    raised there, after the judgments' own, as without the thread.
    """

    def __init__(self, path: Path) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.path = path
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="assay-run")
        self._future = self._pool.submit(load_run, path)

    def result(self) -> Run:
        """The loaded run (raises what :func:`~assay.runs.io.load_run` raises)."""
        try:
            return self._future.result()
        finally:
            self._pool.shutdown(wait=False)

    def discard(self) -> None:
        """Give up on the run (the judgments failed); the read finishes unobserved."""
        self._future.cancel()
        self._pool.shutdown(wait=False)


def prefetch_run(source: Any) -> PendingRun | None:
    """Start reading ``source`` when it is a run file (not a result file), else ``None``."""
    if not isinstance(source, str | Path):
        return None
    path = Path(source)
    if not path.is_file() or is_result_file(path):
        return None
    return PendingRun(path)


@contextmanager
def reading_beside(source: Any) -> Iterator[Any]:
    """``source``, or a :class:`PendingRun` of the run file it names, while the body loads
    the judgments; the read is given up when the body raises (its errors come first).
    A :class:`~assay.runs.blocks.RunBlocks` starts reading its first blocks."""
    if isinstance(source, RunBlocks):
        try:
            yield source.start()
        except BaseException:
            source.discard()
            raise
        return
    pending = prefetch_run(source)
    try:
        yield source if pending is None else pending
    except BaseException:
        if pending is not None:
            pending.discard()
        raise


#: What :func:`load_source` accepts, in words (used in its error message).
ACCEPTED = (
    "a Run, a run file path (its .json sidecar is read), an evaluation result file, "
    "a {query_id: [doc_id, ...]} mapping, a System or a function (query_text, k)"
)


def load_source(
    source: Any,
    judgments: JudgmentSet,
    *,
    k: int = 100,
    name: str | None = None,
    progress: bool = False,
    retries: int | None = None,
    cache: RunCache | str | Path | bool | None = None,
    allow_version_mismatch: bool = False,
    allow_results: bool = False,
    max_consecutive_failures: int | None = None,
) -> Source:
    """Turn ``source`` into a :class:`Source` for ``judgments``.

    ``source`` is one of :data:`ACCEPTED`. A path holding an evaluation result
    (``assay evaluate -o x.json``) is read as such when ``allow_results``.
    ``cache`` (a :class:`~assay.systems.cache.RunCache`, a directory, ``True``
    for the default directory, ``None``/``False`` for none) lets an unchanged
    live system reuse its last complete run, exactly as ``assay run`` does.
    """

    if isinstance(source, Source):
        return source
    if isinstance(source, PendingRun):
        return read_run_file(
            source.path,
            judgments,
            name=name,
            allow_version_mismatch=allow_version_mismatch,
            pending=source,
        )
    if isinstance(source, Run):
        return Source(source, RunProvenance(name=name or source.name, path=source.path))
    if isinstance(source, RunBlocks):  # a run file scored block by block: its sidecar too
        return read_run_file(
            Path(source.path),
            judgments,
            name=name,
            allow_version_mismatch=allow_version_mismatch,
            pending=source,
        )
    if isinstance(source, str | Path):
        path = Path(source)
        if allow_results and is_result_file(path):
            return Source(None, RunProvenance(name=name or path.stem), read_evaluation(path))
        return read_run_file(
            path, judgments, name=name, allow_version_mismatch=allow_version_mismatch
        )
    if isinstance(source, Mapping):
        run = Run.from_dict(source, name=name or "run")
        return Source(run, RunProvenance(name=run.name))
    system = as_system(source, name)
    if system is None:
        raise UsageError(f"a run source must be {ACCEPTED}; got {type(source).__name__}")
    return run_live(
        system,
        judgments,
        k=k,
        progress=progress,
        retries=retries,
        cache=cache,
        max_consecutive_failures=max_consecutive_failures,
    )


def as_system(source: Any, name: str | None = None) -> Any:
    """``source`` as a :class:`~assay.systems.base.System`, or ``None`` when it is not one."""

    if isinstance(source, System):
        return source
    if callable(source):
        return FunctionSystem(source, name=name or getattr(source, "__name__", "function"))
    return None


def is_result_file(path: Path) -> bool:
    """True when ``path`` holds an evaluation result (JSON with kind "evaluation"), not a run."""

    return holds(path, "evaluation")


def read_evaluation(path: str | Path) -> EvaluationResult:
    """Read an evaluation result file (any schema version this assay migrates)."""

    result = read_result_file(path)
    if result.kind != "evaluation":
        raise InputError(
            [Problem(str(path), None, f"a {result.kind} result, not an evaluation", field="kind")]
        )
    return result


def read_run_file(
    path: Path,
    judgments: JudgmentSet,
    *,
    name: str | None = None,
    allow_version_mismatch: bool = False,
    pending: PendingRun | RunBlocks | None = None,
) -> Source:
    """A run file and its sidecar (``run.trec.json``), checked against ``judgments``.

    ``pending`` is the same file already being read (:func:`prefetch_run`), or
    to be read block by block (:func:`~assay.runs.blocks.blocked_run`).
    """

    sharded = is_sharded(path)  # a directory or glob of shards, read on the executor
    if not path.exists() and not sharded:
        raise InputError([Problem(str(path), None, "file not found", hint="check the path")])
    data = (None if sharded else read_sidecar(path)) or {}
    if isinstance(pending, RunBlocks):
        run: Any = pending
    elif pending is not None:
        run = pending.result()
    else:
        run = load_sharded_run(path) if sharded else load_run(path)
    warnings: list[str] = []
    if not sharded and (note := provenance_note(run, path, data)) is not None:
        data = {}  # not this run's sidecar (or none): a plain run of unknown provenance
        warnings.append(note)
    made_on = data.get("judgments_version")
    if made_on and made_on != judgments.version:
        message = (
            f"{path} was made on judgment-set version {made_on}, not {judgments.version} "
            f"(see {sidecar_path(path).name})"
        )
        if not allow_version_mismatch:
            raise UsageError(
                message + "; re-run the system on these judgments, or pass "
                "`allow_version_mismatch` to score it anyway",
                parameter="allow_version_mismatch",
            )
        warnings.append(message + " (scored anyway: `allow_version_mismatch`)")
    try:
        provenance = _sidecar_provenance(data, name or run.name, path, warnings)
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        problem = Problem(
            str(sidecar_path(path)),
            None,
            f"not an assay run sidecar: {str(exc).splitlines()[0]}",
            hint="regenerate it with `assay run` or delete it",
        )
        raise InputError([problem]) from None
    return Source(run, provenance)


def _sidecar_provenance(
    data: dict[str, Any], name: str, path: Path, warnings: list[str]
) -> RunProvenance:
    """The provenance a sidecar records; raises ValueError/TypeError on a malformed one."""
    raw = data.get("failures") or []
    if not isinstance(raw, list) or any(
        not isinstance(f, dict) or not isinstance(f.get("query_id"), str | int) for f in raw
    ):
        raise ValueError("failures must be a list of objects with a string query_id")
    empty = data.get("empty_query_ids") or []
    if not isinstance(empty, list):
        raise ValueError("empty_query_ids must be a list")
    failures = [
        Failure(
            query_id=str(f["query_id"]),
            error=str(f.get("error", "")),
            attempts=int(f.get("attempts", 1)),
        )
        for f in raw
    ]
    latency = data.get("latency_ms")
    return RunProvenance(
        name=name,
        path=str(path),
        system=data["system_config"] if isinstance(data.get("system_config"), dict) else None,
        config_hash=data.get("config_hash"),
        corpus_version=data.get("corpus_version"),
        judgments_version=data.get("judgments_version"),
        k=data.get("k"),
        latency_ms=Latency.model_validate(latency) if isinstance(latency, dict) else None,
        failures=failures,
        empty_query_ids=[str(q) for q in empty],
        warnings=warnings,
    )


def _as_cache(cache: RunCache | str | Path | bool | None) -> RunCache | None:

    if cache is None or cache is False:
        return None
    if cache is True:
        return RunCache()
    if isinstance(cache, RunCache):
        return cache
    return RunCache(cache)


def run_live(
    system: Any,
    judgments: JudgmentSet,
    *,
    k: int = 100,
    progress: bool = False,
    retries: int | None = None,
    cache: RunCache | str | Path | bool | None = None,
    max_consecutive_failures: int | None = None,
) -> Source:
    """Run ``system`` over the judgment set's queries through the runner (and the cache).

    ``retries`` (default: the system's own policy) and ``max_consecutive_failures``
    (the circuit breaker; default: the runner's) are passed to
    :func:`~assay.systems.runner.run_system`.
    """

    if retries is not None and (
        isinstance(retries, bool) or not isinstance(retries, int) or retries < 0
    ):
        at_least("retries", retries, 0)
    breaker = max_consecutive_failures
    extra = {} if breaker is None else {"max_consecutive_failures": breaker}
    outcome = run_system(
        system, judgments, k, progress=progress, retries=retries, cache=_as_cache(cache), **extra
    )
    provenance = RunProvenance(
        name=system.name,
        system=outcome.system_config,
        config_hash=outcome.config_hash,
        corpus_version=outcome.corpus_version,
        judgments_version=outcome.judgments_version,
        k=outcome.k,
        latency_ms=Latency.model_validate(outcome.latency_ms),
        failures=[
            Failure(query_id=f.query_id, error=f.error, attempts=f.attempts)
            for f in outcome.failures
        ],
        empty_query_ids=list(outcome.empty_ids),
        # every query was asked: an empty answer is an empty list, not a missing query
        queries_asked=outcome.queries - len(outcome.failures),
        cached=outcome.cached,
    )
    return Source(outcome.run, provenance)
