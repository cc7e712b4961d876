"""Option models shared by the procedures, defined once.

:class:`SourceOptions` says how a live system is built and called (the
``--system``, corpus, cache, retry and failure options of every command that
runs one); the procedures take it as ``source=``.
:class:`ScoringOptions` holds what :func:`~assay.evaluate`,
:func:`~assay.compare`, :func:`~assay.gate` and :func:`~assay.verify_suite`
share: how judgments and runs are read and scored; each takes it as
``options``. What is a procedure's own has a model of its own
(:mod:`assay.procedures.procedure_options`): one object per concern, so a
procedure takes a handful of parameters and a type checker sees every option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.policies import check_policies
from assay.executors import options_from

#: The default memory budget of an evaluation (MB): a run file whose whole reading would
#: exceed it is scored in blocks (:func:`assay.runs.blocks.blocked_run`).
DEFAULT_MEMORY_MB = 1024


class ScoringOptions(BaseModel):
    """How runs are read and scored, the same for every procedure."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    missing: str = Field(
        "zero", description="judged queries absent from a run: 'zero' (trec_eval -c) or 'skip'"
    )
    ties: str = Field(
        "score",
        description="tied scores: 'score' (doc id descending, as trec_eval) or 'given' order",
    )
    k: int = Field(100, description="documents asked of a live system per query")
    judgments_format: str | None = Field(
        None, description="format of a judgments path (None: detected from name and content)"
    )
    queries: Path | None = Field(
        None, description="queries file of TREC qrels (TSV of id and text, or JSONL)"
    )
    split: str = Field("test", description="split of a BEIR folder's qrels (test, dev, train)")
    allow_version_mismatch: bool = Field(
        False, description="score a run made on another judgment-set version"
    )
    ignore_identical_ids: bool = Field(
        False, description="drop retrieved documents whose id is their query's id (as BEIR)"
    )
    retries: int | None = Field(
        None, description="retries of a failed system call (None: the system's own policy)"
    )
    cache: Any = Field(
        None, description="run cache of a live system: a RunCache, a directory, True or None"
    )
    max_consecutive_failures: int | None = Field(
        None,
        description="stop a live run after this many failed queries in a row "
        "(None: the system's own policy)",
    )
    memory: int = Field(
        DEFAULT_MEMORY_MB,
        description="memory budget in MB (64 to 1048576): a TREC run file whose whole reading "
        "would exceed it is scored in blocks of whole queries, with the same result "
        "(evaluate; the other procedures read runs whole)",
    )
    mix_synthetic: bool = Field(
        False,
        description="score a set mixing synthetic (model-written) and people's queries, "
        "reported apart (refused otherwise)",
    )
    progress: bool = Field(False, description="show the progress of a live system's run")

    @field_validator("memory", mode="before")
    @classmethod
    def _whole_mb(cls, value: Any) -> int:
        """A budget that is not a whole number of MB in bounds: a UsageError naming it."""
        return check_memory(value)

    def model_post_init(self, context: Any, /) -> None:
        """Check the values with the keywords' own rules (a UsageError naming the parameter)."""
        try:
            check_policies(self.missing, self.ties)
            at_least("k", self.k)
            if self.retries is not None:
                at_least("retries", self.retries, 0)
            if self.max_consecutive_failures is not None:
                at_least("max_consecutive_failures", self.max_consecutive_failures, 0)
            check_memory(self.memory)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


#: The bounds of a memory budget (MB).
MEMORY_MB = (64, 1 << 20)


def check_memory(memory: object) -> int:
    """Raise a UsageError naming ``memory`` unless it is a whole number of MB within bounds."""
    low, high = MEMORY_MB
    if isinstance(memory, bool) or not isinstance(memory, int) or not low <= memory <= high:
        raise UsageError(
            f"memory must be a whole number of MB from {low} to {high}, got {memory!r}", "memory"
        )
    return memory


class SourceOptions(BaseModel):
    """How a live system is built and called, the same for every procedure running one.

    ``no_cache`` wins over ``cache_dir``; ``max_failed`` is how many failed
    queries a run may have before the result's exit status says it failed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str | None = Field(
        None,
        description="the system: a name in assay.toml, a type (keyword, bm25, vector) "
        "or module:function (None: no live system)",
    )
    config: Path | None = Field(None, description="an assay.toml declaring systems")
    corpus: Path | None = Field(
        None,
        description="corpus of a built-in system (CSV, JSONL, BEIR corpus.jsonl; "
        "None: a BEIR judgments folder's own corpus)",
    )
    id_field: str | None = Field(None, description="the corpus's id field (None: detected)")
    text_fields: tuple[str, ...] | None = Field(
        None, description="the corpus's text fields (None: detected)"
    )
    offline: bool = Field(
        False, description="make no model calls: endpoint embeddings replay their cache"
    )
    no_cache: bool = Field(
        False, description="always call the system; neither reuse nor store a cached run"
    )
    cache_dir: Path | None = Field(
        None, description="the run cache (None: $ASSAY_CACHE_DIR or .assay/cache)"
    )
    retries: int | None = Field(
        None, description="retries of a failed system call, with backoff (None: the system's)"
    )
    max_consecutive_failures: int = Field(
        5, description="stop a run after this many failed queries in a row (0: never)"
    )
    max_failed: int = Field(
        0, description="failed queries a run may have before the procedure's result fails"
    )
    executor: str | None = Field(
        None,
        description="where system calls run: 'local' or 'ray' (None: $ASSAY_EXECUTOR, else local)",
    )

    def model_post_init(self, context: Any, /) -> None:
        """Check the bounds with the keywords' own rules (a UsageError naming the parameter)."""
        try:
            if self.retries is not None:
                at_least("retries", self.retries, 0)
            at_least("max_consecutive_failures", self.max_consecutive_failures, 0)
            at_least("max_failed", self.max_failed, 0)
            if self.executor is not None:
                options_from(self.executor)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


OptionModel = TypeVar("OptionModel", bound=BaseModel)


def option_object(value: Any, model: type[OptionModel], parameter: str) -> OptionModel:
    """``value``, an option object of ``model`` (``None``: the defaults); anything else is a
    :class:`UsageError` naming ``parameter``."""
    if value is None:
        return model()
    if not isinstance(value, model):
        raise UsageError(
            f"`{parameter}` must be a {model.__name__}, got {type(value).__name__}", parameter
        )
    return value
