"""``assay run`` as a library procedure: a system's run and its sidecar, written together.

:func:`run_to_file` builds the system :class:`~assay.procedures.options.SourceOptions`
names, sends it every query of a judgment set (:func:`assay.systems.runner.run_system`)
and writes the run with its ``.json`` sidecar (system config with secrets
redacted, its hash, corpus and judgment-set versions, k, latency, failures,
timestamps, and abstention at ``abstain_below``) so that both land or neither
does. It returns the :class:`WrittenRun`: data, not a result model (the command
is listed in :data:`assay.procedures.registry.NO_RESULT`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.bounds import at_least, one_of
from assay.core.errors import UsageError
from assay.core.limits import retries as checked_retries
from assay.io.formats import format_from_name
from assay.judgments.beir import corpus_of
from assay.procedures.arguments import as_judgments
from assay.procedures.live import executing, source_cache
from assay.procedures.options import ScoringOptions, SourceOptions
from assay.results.models import Failure, Latency
from assay.runs.sidecar import write_run_pair
from assay.systems.abstain import abstention_report
from assay.systems.cache import deferred_system
from assay.systems.config import build_system
from assay.systems.runner import run_system

#: Formats a run is written in.
RUN_FORMATS = ("trec", "jsonl")


class RunOptions(BaseModel):
    """How the queries are sent and the run written (how judgments are read and ``k``:
    :class:`~assay.procedures.options.ScoringOptions`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int = Field(1, description="queries in flight at once")
    format: str | None = Field(
        None, description="run format: trec or jsonl (None: from the file name, else trec)"
    )
    name: str | None = Field(None, description="run tag (None: the system's name)")
    corpus_format: str | None = Field(
        None, description="corpus format: csv, tsv, jsonl or beir (None: detected)"
    )
    abstain_below: float | None = Field(
        None, description="score abstention: a query abstains below this top score"
    )
    progress: bool = Field(True, description="show progress (a bar, or a line now and then)")

    def model_post_init(self, context: Any, /) -> None:
        """Check the values (a UsageError naming the parameter)."""

        try:
            if self.format is not None:
                one_of("format", self.format, RUN_FORMATS)
            at_least("concurrency", self.concurrency)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


class RunFile(BaseModel):
    """The run a sidecar belongs to: a sidecar whose record does not match is not used."""

    name: str = Field(description="the run file's name when written")
    bytes: int = Field(description="its size in bytes")
    sha256: str = Field(description="the SHA-256 of its content, in hex (as sha256sum prints)")


class RunSidecar(BaseModel):
    """The sidecar written beside a run (``RUN.json``), typed: the provenance of the run.

    Keys a runner adds for some runs (``over_depth_queries``, ``latency_basis``)
    are kept as extra fields.
    """

    model_config = ConfigDict(extra="allow")

    system: str = Field(description="the system's name")
    system_config: dict[str, Any] = Field(description="its configuration, secrets redacted")
    config_hash: str = Field(description="hash of the configuration")
    corpus_version: str | None = Field(description="version of the corpus it indexes")
    judgments_version: str = Field(description="version of the judgment set run")
    k: int = Field(description="documents asked per query")
    queries: int = Field(description="queries asked")
    succeeded: int = Field(description="queries answered")
    failures: list[Failure] = Field(description="queries whose every attempt failed")
    empty_query_ids: list[str] = Field(description="queries answered with no document")
    latency_ms: Latency = Field(description="latency of the successful calls")
    started: str = Field(description="when the run started (UTC, ISO 8601)")
    finished: str = Field(description="when it finished")
    cached: bool = Field(description="True when read from the run cache")
    assay_version: str = Field(description="the assay that made it")
    judgments: str = Field(description="the judgments path run")
    abstention: dict[str, Any] | None = Field(
        None, description="abstention at abstain_below (absent without it)"
    )
    run_file: RunFile | None = Field(
        None, description="the run file this sidecar belongs to (name, size, SHA-256)"
    )


@dataclass(frozen=True)
class WrittenRun:
    """A run written with its sidecar: the outcome (run, failures, latency), the typed
    sidecar and the files."""

    outcome: Any
    sidecar: RunSidecar
    path: Path
    sidecar_path: Path
    format: str
    abstention: Any = None

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """``[(system name, failed query ids)]``, as :mod:`assay.core.failures` counts them."""
        return [(self.outcome.system_name, self.outcome.failed_ids)]


def run_to_file(
    judgments: str | Path,
    output: str | Path,
    source: SourceOptions,
    options: RunOptions | None = None,
    reading: ScoringOptions | None = None,
) -> WrittenRun:
    """Run every query of ``judgments`` through ``source.system``; write run and sidecar.

    ``reading`` says how the judgments are read (``judgments_format``,
    ``queries``, ``split``) and how many documents are asked per query (``k``);
    its scoring fields are not used.

    ``source`` gives the system, its corpus and fields, the cache, the retries
    (at most :data:`~assay.core.limits.MAX_RETRIES`), the circuit breaker
    and the executor; with a BEIR folder of judgments and no corpus, the
    folder's corpus is the corpus.
    """

    options, reading = options or RunOptions(), reading or ScoringOptions()
    if source.system is None:
        raise UsageError("`system` is needed: the system to run", "system")
    if source.retries is not None:
        checked_retries(source.retries, "`retries`")
    judgment_set = as_judgments(
        judgments, reading.judgments_format, split=reading.split,
        **({"queries": reading.queries} if reading.queries is not None else {}),
    )  # fmt: skip
    system = _system(source, judgments, options.corpus_format)
    with executing(source):
        outcome = run_system(
            system, judgment_set, reading.k, retries=source.retries,
            max_consecutive_failures=source.max_consecutive_failures,
            concurrency=options.concurrency, progress=options.progress,
            cache=source_cache(source),
        )  # fmt: skip
    tag = options.name or system.name
    return _write(outcome, judgment_set, judgments, output, options, tag=tag)


def _write(
    outcome: Any, judgment_set: Any, judgments: str | Path, output: str | Path,
    options: RunOptions, tag: str,
) -> WrittenRun:  # fmt: skip

    sidecar = outcome.metadata()
    sidecar["judgments"] = str(judgments)
    abstention = None
    if options.abstain_below is not None:
        abstention = abstention_report(
            outcome.run, judgment_set, options.abstain_below, failed=outcome.failed_ids
        )
        sidecar["abstention"] = abstention.to_dict()
    typed = RunSidecar.model_validate(sidecar)  # before writing: nothing half-written
    path, side = write_run_pair(outcome.run, output, sidecar, format=options.format, tag=tag)
    typed = typed.model_copy(update={"run_file": RunFile.model_validate(sidecar["run_file"])})
    fmt = options.format or format_from_name(output, "run") or "trec"
    return WrittenRun(outcome, typed, Path(path), Path(side), fmt, abstention)


def _system(source: SourceOptions, judgments: str | Path, corpus_format: str | None) -> Any:
    """The system to run, built on first use (a run found in the cache builds nothing)."""

    spec, corpus = str(source.system), corpus_of(judgments, source.corpus)
    overrides: dict[str, Any] = {
        "id_field": source.id_field,
        "text_fields": list(source.text_fields) if source.text_fields else None,
        "corpus_format": corpus_format,
    }

    def build() -> Any:
        return build_system(
            spec,
            config_path=source.config,
            corpus=str(corpus) if corpus is not None else None,
            overrides=overrides,
        )

    given = {key: value for key, value in overrides.items() if value is not None}
    system = deferred_system(spec, build, config_path=source.config, corpus=corpus, overrides=given)
    if source.offline and callable(getattr(system, "set_offline", None)):
        system.set_offline(True)  # endpoint embeddings replay their cache
    return system
