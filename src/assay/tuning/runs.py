"""One run per parameter set, each computed once: read from the run cache, else asked of the
system on the executor in force (``--executor ray`` spreads the sets over the cluster).

:class:`SetBuilder` builds the system of each set from its table with the tuned keys
applied. What does not change between sets is built once: the corpus is loaded once, and
a hybrid's members are built once and asked each query once (:class:`AnsweredOnce`), so
only a change to an index parameter (BM25's ``k1``/``b``, a vector's ``max_tokens``)
builds an index again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import AssayError, UsageError
from assay.corpora.models import Corpus
from assay.executors import current
from assay.executors.systems import by_value
from assay.io.configfile import find_config
from assay.judgments.beir import corpus_of
from assay.systems.config import build_system, load_config, system_types
from assay.systems.python import is_function_spec
from assay.systems.runner import run_key, run_system
from assay.tuning import space

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.procedures.options import SourceOptions
    from assay.systems.base import Hit, System
    from assay.systems.cache import RunCache
    from assay.systems.outcome import RunOutcome


class IncompleteRun(AssayError):
    """A parameter set's run had failed queries: its scores would not compare (exit 1)."""

    exit_code = 1


def base_table(spec: str, config_path: str | Path | None) -> dict[str, Any]:
    """The table ``spec`` names: a ``[systems.NAME]`` of the config, a bare type, or a
    ``module:function`` (type python), as :func:`~assay.systems.config.build_system` reads it."""

    cfg = find_config(config_path)
    systems = load_config(cfg).get("systems", {}) if cfg else {}
    if spec in systems:
        return dict(systems[spec])
    if spec in system_types():
        return {"type": spec}
    if is_function_spec(spec):
        return {"type": "python", "function": spec}
    raise UsageError(
        f"unknown system {spec!r} (declared: {', '.join(systems) or 'none'})", "system"
    )


class AnsweredOnce:
    """A system whose answers are remembered: asked each (query, depth) once."""

    def __init__(self, inner: System) -> None:
        self.inner, self.name = inner, inner.name
        self._answers: dict[tuple[str, int], list[Hit]] = {}
        self._lock = threading.Lock()

    @property
    def config(self) -> dict[str, Any]:
        """The wrapped system's config."""
        return self.inner.config

    def search(self, query: str, k: int) -> list[Hit]:
        """The remembered answer, else the system's."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """Only the queries not asked before at depth ``k`` reach the system."""
        with self._lock:
            todo = [q for q in dict.fromkeys(queries) if (q, k) not in self._answers]
            if todo:
                many = getattr(self.inner, "search_many", None)
                found = many(todo, k) if callable(many) else [self.inner.search(q, k) for q in todo]
                self._answers.update({(q, k): list(h) for q, h in zip(todo, found, strict=True)})
            return [self._answers[(q, k)] for q in queries]

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.inner, attr)


class SetBuilder:
    """Builds the system of each parameter set (see the module docstring)."""

    def __init__(self, source: SourceOptions, judgments: Any, space_: dict[str, list[Any]]):

        if not source.system:
            raise UsageError("give the system to tune (--system NAME)", "system")
        self.source = source
        self.table = base_table(source.system, source.config)
        self.tuned = space.prefill(self.table, space_)
        corpus = corpus_of(judgments if isinstance(judgments, str | Path) else None, source.corpus)
        self.corpus: Any = str(corpus) if corpus is not None else None
        self.overrides: dict[str, Any] = {}
        if source.id_field:
            self.overrides["id_field"] = source.id_field
        if source.text_fields:
            self.overrides["text_fields"] = list(source.text_fields)
        self.members: dict[str, Any] = {}

    @property
    def type_name(self) -> str:
        """The tuned system's type."""
        return str(self.table.get("type"))

    def check(self, params: dict[str, Any]) -> None:
        """Refuse a set the type's table model refuses (naming ``--param``)."""
        space.check(space.apply(self.tuned, params), params)

    def build(self, params: dict[str, Any] | None) -> System:
        """The system as configured (``None``) or with ``params`` applied."""

        table = self.table if params is None else space.apply(self.tuned, params)
        overrides = dict(self.overrides)
        overrides.update({k: table[k] for k in {p.split(".")[0] for p in (params or {})}})
        system = build_system(
            self.source.system or "",
            config_path=self.source.config,
            corpus=self.corpus,
            overrides=overrides,
            resolve=self._member if self.type_name == "hybrid" else None,
        )
        loaded = getattr(system, "corpus", None) or getattr(system, "_corpus", None)
        if isinstance(loaded, Corpus):
            self.corpus = loaded  # loaded once, shared by every later set
        return system

    def _member(self, name: str) -> System:

        if name not in self.members:
            built = build_system(name, config_path=self.source.config, corpus=self.corpus)
            self.members[name] = AnsweredOnce(built)
        return self.members[name]


def _run_one(shared: tuple[Any, int, Any, int], system: System) -> RunOutcome:
    """On a worker (or here): the run of one set, without the cache (the driver writes it)."""

    judgments, k, retries, max_failures = shared
    return run_system(
        system,
        judgments,
        k,
        retries=retries,
        progress=False,
        max_consecutive_failures=max_failures,
    )


def run_all(
    systems: list[System],
    judgments: JudgmentSet,
    k: int,
    source: SourceOptions,
    cache: RunCache | None,
    tick: Callable[[int], Any],
) -> list[tuple[RunOutcome, bool]]:
    """``(outcome, cached)`` of every system, in order; misses run on the executor in force
    and are written to the cache here. A run with failed queries is refused."""

    out: list[tuple[RunOutcome, bool] | None] = [None] * len(systems)
    keys = [run_key(s, judgments, k) for s in systems]
    misses = []
    for i, (system, key) in enumerate(zip(systems, keys, strict=True)):
        hit = cache.get(key, name=system.name) if cache is not None else None
        if hit is not None:
            out[i] = (hit, True)
            tick(1)
        else:
            misses.append(i)
    executor = current()
    if executor.name == "ray":
        for i in misses:
            by_value(getattr(systems[i], "function", None))
    shared = (judgments, k, source.retries, source.max_consecutive_failures)
    outcomes = executor.map(_run_one, [systems[i] for i in misses], shared=shared)
    for i, outcome in zip(misses, outcomes, strict=True):
        if outcome.failures:
            raise IncompleteRun(
                f"{systems[i].name}: {len(outcome.failures)} queries failed "
                f"(first: {outcome.failures[0].query_id}); tuning needs every query answered"
            )
        if cache is not None:
            cache.put(keys[i], outcome)
        out[i] = (outcome, False)
        tick(1)
    return [o for o in out if o is not None]
