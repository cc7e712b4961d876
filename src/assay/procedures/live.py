"""A live system from :class:`~assay.procedures.options.SourceOptions`, for every procedure.

:func:`live_system` builds the system the options name (deferred: a run found
in the run cache loads no corpus, model or index), :func:`run_keywords` turns
the options into the keywords of :func:`~assay.procedures.sources.load_source`
(``retries``, ``cache``, ``max_consecutive_failures``), and :func:`executing`
runs a procedure's body on the options' executor. Evaluate, compare, gate and
verify-suite, through the library and the command line, build systems here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.corpora import read_corpus_ids
from assay.executors import use
from assay.judgments.beir import corpus_of
from assay.procedures.options import ScoringOptions, SourceOptions
from assay.systems.cache import RunCache, deferred_system
from assay.systems.config import build_system

if TYPE_CHECKING:  # pragma: no cover
    from assay.systems.base import System
    from assay.systems.cache import RunCache


def source_options(source: SourceOptions | None) -> SourceOptions:
    """``source`` checked to be a :class:`SourceOptions` (``None``: the defaults)."""
    if source is None:
        return SourceOptions()
    if not isinstance(source, SourceOptions):
        raise UsageError(f"`source` must be a SourceOptions, got {type(source).__name__}", "source")
    return source


def live_system(spec: str, source: SourceOptions, judgments: Any = None) -> System:
    """The system ``spec`` names, built with ``source``'s config, corpus and fields.

    When ``judgments`` is a BEIR folder and ``source`` names no corpus, the
    folder's corpus is the corpus (:func:`assay.judgments.beir.corpus_of`).
    ``source.offline`` makes endpoint embeddings replay their cache.
    """

    corpus = corpus_of(judgments if isinstance(judgments, str | Path) else None, source.corpus)
    overrides: dict[str, Any] = {}
    if source.id_field:
        overrides["id_field"] = source.id_field
    if source.text_fields:
        overrides["text_fields"] = list(source.text_fields)

    def build() -> Any:
        return build_system(
            spec,
            config_path=source.config,
            corpus=str(corpus) if corpus is not None else None,
            overrides=overrides or None,
        )

    system = deferred_system(
        spec, build, config_path=source.config, corpus=corpus, overrides=overrides or None
    )
    setter = getattr(system, "set_offline", None)
    if source.offline and callable(setter):
        setter(True)  # endpoint embeddings replay their cache; other systems call nothing
    return system


def source_cache(source: SourceOptions) -> RunCache | None:
    """The run cache ``source`` asks for (``None`` with ``no_cache``)."""
    if source.no_cache:
        return None

    return RunCache(source.cache_dir)


def run_keywords(
    source: SourceOptions | None,
    *,
    retries: int | None = None,
    cache: Any = None,
    max_consecutive_failures: int | None = None,
) -> dict[str, Any]:
    """The ``retries``/``cache``/``max_consecutive_failures`` keywords of a live run.

    Without ``source`` they are the keywords given. With it, they come from
    ``source``; a keyword also given another value (not ``None``) is a
    :class:`UsageError`.
    """
    given = {
        "retries": retries,
        "cache": cache,
        "max_consecutive_failures": max_consecutive_failures,
    }
    if source is None:
        return given
    source = source_options(source)
    chosen = {
        "retries": source.retries,
        "cache": source_cache(source),
        "max_consecutive_failures": source.max_consecutive_failures,
    }
    for name, value in given.items():
        if value is not None and (name == "cache" or value != chosen[name]):
            raise UsageError(f"give `{name}` either as a keyword or in `source`, not both", name)
    return chosen


def failed_bound(source: SourceOptions | None, max_failed: int) -> int:
    """``max_failed``, or ``source.max_failed`` (a keyword also given another value than
    the default 0 is a :class:`UsageError`)."""
    if source is None:
        return max_failed
    if max_failed not in (0, source.max_failed):
        raise UsageError(
            "give `max_failed` either as a keyword or in `source`, not both", "max_failed"
        )
    return source.max_failed


def source_documents(source: SourceOptions | None) -> frozenset[str] | None:
    """The ids of ``source``'s corpus, when it names one: judgments outside it are refused."""
    if source is None or source.corpus is None:
        return None

    return read_corpus_ids(source.corpus, id_field=source.id_field)


def run_or_system(
    run: Any, source: SourceOptions | None, judgments: Any, *, both: str, neither: str
) -> Any:
    """``run``, or the live system ``source.system`` names (:func:`live_system`).

    Giving both is a :class:`UsageError` saying ``both``; with ``source``,
    giving neither is one saying ``neither``.
    """
    system = source.system if source is not None else None
    if run is not None and system is not None:
        raise UsageError(both, "system")
    if source is None:
        return run
    if run is None and system is None:
        raise UsageError(neither, "run")
    return run if system is None else live_system(system, source, judgments)


@contextmanager
def executing(source: SourceOptions | None) -> Iterator[None]:
    """Run the body on ``source.executor`` when it names one (the previous choice after)."""
    if source is None or source.executor is None:
        yield
        return

    with use(source.executor):
        yield


def live_keywords(source: SourceOptions | None, options: ScoringOptions) -> dict[str, Any]:
    """:func:`run_keywords` of ``options``' ``retries``, ``cache`` and
    ``max_consecutive_failures`` (a value also in ``source`` is refused there)."""
    return run_keywords(
        source,
        retries=options.retries,
        cache=options.cache,
        max_consecutive_failures=options.max_consecutive_failures,
    )
