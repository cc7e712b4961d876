"""Versioned result models: what ``evaluate`` produces and every renderer reads.

Renderers (terminal, Markdown, HTML, JSON) and the history store read these
models and hold no scoring logic of their own. ``schema_version`` changes when
a field changes meaning; readers refuse versions they do not know.

The base of every result model, the registry of result kinds and the reading of
result files live in :mod:`assay.results.files`; their names are re-exported here
(``assay.results.models.ResultModel``, ``RESULT_MODELS``, ``read_result_file`` ...).
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.core.errors import UsageError
from assay.core.policies import MissingPolicy, ScoringPolicy, TiePolicy
from assay.core.redact import scrub_secrets
from assay.io.formats import PARQUET_RESULT_KEY as PARQUET_KEY
from assay.metrics.rules import scoring_policies

# re-exported: every result kind's base, registry and reader are assay.results.models names
from assay.results.files import MIGRATIONS as MIGRATIONS
from assay.results.files import RESULT_MODELS as RESULT_MODELS
from assay.results.files import ResultModel as ResultModel
from assay.results.files import current_assay_version as current_assay_version
from assay.results.files import load_result as load_result
from assay.results.files import migrate as migrate
from assay.results.files import read_result_file as read_result_file
from assay.results.files import result_model as result_model
from assay.results.files import utc_now as utc_now
from assay.results.perquery import ItemAccess, PerQuery, rows_to_columns
from assay.results.perquery import (
    QueryRow as QueryRow,  # re-exported: assay.results.models.QueryRow
)

#: "2": ``per_query`` is an object of columns (one array per field); "1" held rows.
SCHEMA_VERSION = "2"


def _evaluation_rows_to_columns(data: dict[str, Any]) -> dict[str, Any]:
    """Evaluation schema 1 -> 2: the per-query rows become one array per field."""
    rows = data.get("per_query")
    if isinstance(rows, list):
        data["per_query"] = rows_to_columns(rows)
    data["schema_version"] = "2"
    return data


MIGRATIONS[("evaluation", "1")] = _evaluation_rows_to_columns


class JudgmentsInfo(BaseModel):
    """Which judgment set was used."""

    model_config = ConfigDict(extra="allow")

    path: str | None = None
    name: str
    version: str
    format: str = "memory"
    queries: int = Field(description="answerable queries scored by ranking metrics")
    no_answer_queries: int = 0
    total_queries: int = 0
    label_sources: dict[str, int] = Field(
        default_factory=dict, description="judgments per label source (human, model, behavior)"
    )
    synthetic_queries: int = Field(0, description="synthetic (model-written) queries")
    synthetic_overlap: float | None = Field(
        None, description="mean word overlap of the synthetic queries with their documents"
    )
    warnings: list[str] = Field(default_factory=list)


class Failure(ItemAccess, BaseModel):
    """A query whose system call failed on every attempt: reported, never scored."""

    query_id: str
    error: str = ""
    attempts: int = 1


class Latency(ItemAccess, BaseModel):
    """Latency of the successful system calls, in milliseconds (``None``: no call)."""

    model_config = ConfigDict(extra="allow")

    p50: float | None = None
    p95: float | None = None
    mean: float | None = None


class RunInfo(BaseModel):
    """Which ranked lists were scored, and how they matched the judgments."""

    model_config = ConfigDict(extra="allow")

    name: str
    path: str | None = None
    system: dict[str, Any] | None = None
    corpus_version: str | None = None
    queries_in_run: int = 0
    ignored_queries: int = Field(0, description="queries in the run but not judged")
    missing_queries: int = Field(0, description="judged answerable queries absent from the run")
    tied_pairs_at_cutoff: int = Field(
        0, description="(query, cutoff) pairs where the k-th and (k+1)-th results tie on score"
    )
    failed_queries: list[str] = Field(
        default_factory=list, description="queries whose system call failed: not scored"
    )
    failures: list[Failure] = Field(
        default_factory=list, description="each failed call: query_id, error, attempts"
    )
    warnings: list[str] = Field(default_factory=list)
    config_hash: str | None = Field(
        None, description="hash of the system configuration (assay.systems.base.config_hash)"
    )
    k: int | None = Field(None, description="depth the system was asked for")
    latency_ms: Latency | None = None
    identical_ids_dropped: int | None = Field(
        None,
        description="retrieved documents dropped because their id is their query's id "
        "(ignore_identical_ids); None: not asked",
    )


class Policy(BaseModel):
    """How missing queries, tied scores and documents carrying their query's id were handled."""

    missing: MissingPolicy = "zero"
    ties: TiePolicy = "score"
    ignore_identical_ids: bool = Field(
        False, description="documents whose id is their query's id dropped before scoring (BEIR)"
    )


def trusted_rows(
    cls: type[BaseModel], columns: Mapping[str, Sequence[Any]], omit_none: Sequence[str] = ()
) -> list[Any]:
    """Rows of ``cls`` from checked columns, as ``model_construct`` makes them but faster.

    ``columns`` maps each declared field of ``cls`` (all are required: nothing
    is defaulted or validated) and each extra key to one value per row; a key
    in ``omit_none`` is left out of a row whose value is ``None``. For the
    per-query rows of large runs (100,000 queries), built from checked arrays.
    """
    declared = list(cls.model_fields)
    absent = [name for name in declared if name not in columns]
    if absent:
        raise ValueError(f"trusted_rows: no column for {', '.join(absent)}")
    extra_keys = [k for k in columns if k not in cls.model_fields]
    allow = cls.model_config.get("extra") == "allow"
    extras = zip(*(columns[k] for k in extra_keys), strict=True) if extra_keys else repeat(())
    omit = [k for k in omit_none if k in extra_keys]
    new, put = object.__new__, object.__setattr__
    out = []
    paused = gc.isenabled()  # the rows hold no cycles: collecting while building is wasted
    gc.disable()
    try:
        rows = zip(*(columns[k] for k in declared), strict=True)
        for values, extra_values in zip(rows, extras, strict=False):  # extras may repeat ()
            extra = dict(zip(extra_keys, extra_values, strict=True))
            for key in omit:
                if extra[key] is None:
                    del extra[key]
            m = new(cls)
            put(m, "__dict__", dict(zip(declared, values, strict=True)))
            put(m, "__pydantic_fields_set__", set(declared))
            put(m, "__pydantic_extra__", extra if allow else None)
            put(m, "__pydantic_private__", None)
            out.append(m)
    finally:
        if paused:
            gc.enable()
    return out


class NoAnswerRow(ItemAccess, BaseModel):
    """What a run returned for one no-answer query (reported apart from the scores)."""

    model_config = ConfigDict(extra="allow")

    query_id: str
    text: str = ""
    returned: int = 0
    top_doc: str | None = None
    top_score: float | None = None
    failed: bool = False


class Abstention(ItemAccess, BaseModel):
    """Abstention at one score threshold: a top score below it counts as "nothing confident"."""

    threshold: float
    no_answer_queries: int
    no_answer_abstained: int
    abstention_accuracy: float | None = None
    answerable_queries: int
    answerable_abstained: int
    false_abstention_rate: float | None = None
    abstained_ids: list[str] = Field(default_factory=list)
    excluded_ids: list[str] = Field(default_factory=list)


class EvaluationResult(ResultModel):
    """Scores of one run on one judgment set: aggregate, per group, per query.

    ``per_query`` rows hold ``query_id``, ``text``, ``first_rel_rank`` (1-based
    rank of the first relevant document, ``None`` when none was retrieved),
    ``in_run``, the metadata fields, and one key per metric name.
    """

    model_config = ConfigDict(extra="allow")

    schema_version: str = SCHEMA_VERSION
    kind: Literal["evaluation"] = "evaluation"
    judgments: JudgmentsInfo
    run: RunInfo
    policy: Policy = Field(default_factory=Policy)
    metrics: list[str]
    aggregate: dict[str, float | None]
    groups: dict[str, dict[str, dict[str, float | int | None]]] = Field(default_factory=dict)
    per_query: PerQuery = Field(
        default_factory=PerQuery.empty,
        description="per-query values as columns: query_id, text, first_rel_rank, in_run, "
        "metadata fields, one float column per metric",
    )
    no_answer: list[NoAnswerRow] = Field(
        default_factory=list, description="no-answer queries, reported apart from ranking scores"
    )
    environment: dict[str, Any] = Field(default_factory=dict)
    abstention: Abstention | None = Field(
        None,
        description="with abstain_below: abstention accuracy on no-answer queries and "
        "the false-abstention rate on answerable ones, with counts",
    )
    policies: list[ScoringPolicy] = Field(
        default_factory=list,
        description="every scoring rule in force, marked where it differs from trec_eval",
    )

    @model_validator(mode="after")
    def _recorded_policies(self) -> Self:
        """A result written before ``policies`` existed gets the rules its fields record."""
        if "policies" not in self.model_fields_set:
            self.policies = evaluation_policies(self)
        self.per_query = PerQuery.coerce(self.per_query, self.metrics)
        return self

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The run's failed queries (a live system's calls, or its sidecar's)."""
        return [(self.run.name, list(self.run.failed_queries))]

    def exit_code(self) -> int:
        """1 when every call failed and nothing was scored, else 0."""
        return 1 if self.judgments.queries == 0 and self.run.failed_queries else 0

    def per_query_table(self) -> PerQuery:
        """The per-query columns (rows given to ``model_copy`` are turned into columns)."""
        found = self.per_query
        if isinstance(found, PerQuery) and found.metrics == tuple(
            m for m in self.metrics if m in found.table.column_names
        ):
            return found
        return PerQuery.coerce(found, self.metrics)

    def per_query_frame(self):  # -> pandas.DataFrame
        """Per-query values as a pandas DataFrame indexed by ``query_id``.

        Metric columns are views of the result's own arrays (no copy);
        ``first_rel_rank`` is float with NaN where no relevant document was retrieved.
        """
        return self.per_query_table().frame()

    def to_json(self, indent: int | None = 2) -> str:
        """The result file's JSON, the per-query columns written from their arrays."""
        return self.json_bytes(indent).decode("utf-8")

    def json_bytes(self, indent: int | None = 2) -> bytes:
        """:meth:`to_json` as UTF-8 bytes (what a result file holds)."""
        fragment = self.per_query_table().json_fragment(2 if indent else None)
        return self.json_with("per_query", fragment, indent)

    def parquet_bytes(self) -> bytes:
        """The per-query table as Parquet, the rest of the result (JSON, secrets scrubbed)
        in its schema metadata: pandas, Polars and DuckDB read the table, assay the whole."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        head = scrub_secrets(self.model_dump_json(exclude={"per_query"}))
        table = self.per_query_table().table
        table = table.replace_schema_metadata({PARQUET_KEY: head.encode("utf-8")})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        return sink.getvalue().to_pybytes()


def evaluation_policies(result: EvaluationResult) -> list[ScoringPolicy]:
    """The scoring rules an evaluation result's own fields record (for older result files)."""

    j, r = result.judgments, result.run
    return scoring_policies(
        missing=result.policy.missing,
        ties=result.policy.ties,
        metrics=result.metrics,
        no_answer_queries=j.no_answer_queries,
        ignored_queries=r.ignored_queries,
        failed_queries=len(r.failed_queries),
        synthetic_queries=j.synthetic_queries,
        total_queries=j.total_queries,
        system_depth=r.k if r.system else None,
        identical_ids_dropped=r.identical_ids_dropped,
    )


def check_pairable(
    results: Sequence[EvaluationResult],
    labels: Sequence[str],
    *,
    allow_version_mismatch: bool = False,
) -> list[str]:
    """Refuse to pair results scored on other judgment-set versions or with other policies.

    Returns warnings (a version mismatch allowed by ``allow_version_mismatch``).
    Policies (``missing``, ``ties``, ``ignore_identical_ids``) change scores, so
    they must agree: there is no override.
    """

    warnings: list[str] = []
    versions = {r.judgments.version for r in results}
    if len(versions) > 1:
        detail = ", ".join(
            f"{n}: {r.judgments.version}" for n, r in zip(labels, results, strict=True)
        )
        if not allow_version_mismatch:
            raise UsageError(
                f"results were made on different judgment-set versions ({detail}); scores across "
                "judgment-set versions are not comparable: re-evaluate on one version or pass "
                "`allow_version_mismatch`",
                "allow_version_mismatch",
            )
        warnings.append(f"judgment-set versions differ ({detail}); compared anyway on request")
    for field in ("missing", "ties", "ignore_identical_ids"):
        seen = {getattr(r.policy, field) for r in results}
        if len(seen) > 1:
            detail = ", ".join(
                f"{n}: {getattr(r.policy, field)}" for n, r in zip(labels, results, strict=True)
            )
            raise UsageError(
                f"results were scored with different `{field}` policies ({detail}); "
                f"re-evaluate them with one `{field}` value",
                field,
            )
    return warnings
