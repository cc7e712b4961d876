"""Versioned result models: what ``evaluate`` produces and every renderer reads.

Renderers (terminal, Markdown, HTML, JSON) and the history store read these
models and hold no scoring logic of their own. ``schema_version`` changes when
a field changes meaning; readers refuse versions they do not know.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from itertools import repeat
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.formats import PARQUET_RESULT_KEY as PARQUET_KEY
from assay.perquery import ItemAccess, PerQuery, rows_to_columns
from assay.perquery import QueryRow as QueryRow  # re-exported: assay.results.QueryRow
from assay.policies import MissingPolicy, ScoringPolicy, TiePolicy

#: "2": ``per_query`` is an object of columns (one array per field); "1" held rows.
SCHEMA_VERSION = "2"


def utc_now() -> str:
    """The current time, UTC, ISO 8601 to the second (result timestamps)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def current_assay_version() -> str:
    """The running assay's version (stamped into every result)."""
    from assay import __version__

    return __version__


class ResultModel(BaseModel):
    """Base of every result-file model: JSON out, JSON in with file-named errors.

    Subclasses declare ``schema_version`` (default: the version they write) and
    ``kind``; :meth:`from_file` refuses other schema versions.
    """

    model_config = ConfigDict(extra="allow")

    # Subclasses override the first two with their own version and Literal kind;
    # the four stay first in every result file.
    schema_version: str = "1"
    kind: str = "result"
    assay_version: str = Field(default_factory=current_assay_version)
    created_at: str = Field(default_factory=utc_now)

    def to_json(self, indent: int | None = 2) -> str:
        """Serialise to JSON (the result-file format)."""
        return self.model_dump_json(indent=indent)

    def json_with(self, name: str, fragment: bytes, indent: int | None = 2) -> bytes:
        """The JSON of this result with field ``name`` written as ``fragment`` (JSON bytes
        made from columns), in its place among the fields."""
        import orjson

        from assay.safejson import dumps

        head = self.model_dump(mode="json", exclude={name})
        ordered: dict[str, Any] = {}
        for key in (*type(self).model_fields, *head):
            if key == name:
                ordered[key] = orjson.Fragment(fragment)
            elif key in head:
                ordered[key] = head[key]
        return dumps(ordered, indent=indent)

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """(run name, failed query ids) of each run this result scored, for ``--max-failed``
        (:mod:`assay.failures`); none by default."""
        return []

    def exit_code(self) -> int:
        """The status the command that made this result ends with, failed queries aside:
        0 when it did its job, 1 when it ran and says no (a gate that fails, nothing scored)."""
        return 0

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Read a result file of this kind; errors name the file and field."""
        from assay.errors import InputError, Problem

        kind = cls.model_fields["kind"].default
        result = read_result_file(path, expect=kind)
        if not isinstance(result, cls):
            raise InputError(
                [Problem(str(path), None, f"not an assay {kind} result file", field="kind")]
            )
        return result


#: Result kind -> "module:Class" of its model: the one registry every reader uses.
RESULT_MODELS: dict[str, str] = {
    "evaluation": "assay.results:EvaluationResult",
    "comparison": "assay.stats.models:ComparisonResult",
    "answers": "assay.answers.result:AnswersResult",
    "gate": "assay.procedures.gate_result:GateResult",
    "verify": "assay.procedures.verification:VerifyResult",
    "matrix": "assay.matrix.result:MatrixResult",
    "history": "assay.store.history:HistoryReport",
    "agreement": "assay.procedures.agreement:AgreementResult",
    "calibration": "assay.procedures.calibration:CalibrationResult",
    "model_judgments": "assay.judges.relevance:JudgeJob",
    "model_claims": "assay.judges.cases:ClaimsResult",
    "model_answers": "assay.judges.cases:AnswersGradeResult",
    "implicit_judgments": "assay.behavior.implicit:ImplicitJudgments",
    "synthetic-queries": "assay.generate.queries:SyntheticQueries",
}

#: (kind, schema_version) -> a function upgrading a payload by one version. A reader
#: migrates older files step by step instead of refusing them.
MIGRATIONS: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {}


def _evaluation_rows_to_columns(data: dict[str, Any]) -> dict[str, Any]:
    """Evaluation schema 1 -> 2: the per-query rows become one array per field."""
    rows = data.get("per_query")
    if isinstance(rows, list):
        data["per_query"] = rows_to_columns(rows)
    data["schema_version"] = "2"
    return data


MIGRATIONS[("evaluation", "1")] = _evaluation_rows_to_columns


def result_model(kind: str) -> type[ResultModel]:
    """The model class of result ``kind``; raises KeyError for unknown kinds."""
    import importlib

    module, name = RESULT_MODELS[kind].split(":")
    return getattr(importlib.import_module(module), name)


def migrate(data: dict[str, Any], source: str = "result") -> dict[str, Any]:
    """``data`` upgraded to the schema version its kind's model writes (never mutated)."""
    from assay.errors import InputError, Problem

    kind = str(data.get("kind", "evaluation"))
    current = result_model(kind).model_fields["schema_version"].default
    version = str(data.get("schema_version", current))
    while version != current:
        step = MIGRATIONS.get((kind, version))
        if step is None:
            raise InputError(
                [
                    Problem(
                        source,
                        None,
                        f"unknown schema_version {version!r} of a {kind} result "
                        f"(this assay reads {current!r})",
                        field="schema_version",
                        hint="upgrade assay to read this result",
                    )
                ]
            )
        data = step(dict(data))
        version = str(data.get("schema_version"))
    return data


def load_result(payload: str | dict[str, Any], source: str = "result") -> Any:
    """A result payload (JSON text or dict) as its model, migrated; unknown kinds stay dicts.

    Raises pydantic's ``ValidationError`` when the payload does not fit its model.
    """
    from assay.textio import parse_json

    data = parse_json(payload) if isinstance(payload, str) else dict(payload)
    kind = str(data.get("kind", "evaluation"))
    if kind not in RESULT_MODELS:
        return data
    return result_model(kind).model_validate(migrate(data, source))


def read_result_file(path: str | Path, expect: str | None = None) -> Any:
    """Read a result file into its model; errors name the file, line and field.

    ``expect`` is the kind the caller needs (any known kind when ``None``).
    """
    import json

    from pydantic import ValidationError

    from assay.errors import InputError, Problem, UsageError
    from assay.fileio import check_input
    from assay.textio import parse_json, read_bytes

    p = Path(path)
    check_input(p)
    if not p.is_file():
        raise UsageError(f"result file not found: {p}")
    hint = "write result files with --format json -o FILE.json"
    raw = read_bytes(p) or b""
    try:
        data = _parquet_payload(raw, p) if raw[:4] == b"PAR1" else parse_json(raw)
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(p), None, f"not UTF-8 text: {exc.reason}")]) from None
    except json.JSONDecodeError as exc:
        message = f"not a JSON result file: {exc.msg}"
        raise InputError([Problem(str(p), exc.lineno, message, hint=hint)]) from None
    kind = data.get("kind") if isinstance(data, dict) else None
    wanted = [expect] if expect else list(RESULT_MODELS)
    if kind not in wanted:
        message = f"unknown result kind {kind!r}"
        if expect:
            message = f"not an assay {expect} result file (kind {kind!r})"
        problem = Problem(
            str(p), 1, message, field="kind", hint=f"an assay result has kind {' or '.join(wanted)}"
        )
        raise InputError([problem])
    try:
        return load_result(data, str(p))
    except ValidationError as exc:
        what = f"not an assay {kind} result file"
        problems = [
            Problem(
                str(p),
                None,
                f"{what}: {err.get('msg', 'invalid value')}",
                field=".".join(str(x) for x in err.get("loc", ())) or None,
                hint=hint,
            )
            for err in exc.errors()[:20]
        ]
        raise InputError(problems) from None


def _parquet_payload(raw: bytes, path: Path) -> dict[str, Any]:
    """An evaluation result written as Parquet: its header from the schema metadata, its
    per-query columns from the table (no row is built)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from assay.errors import InputError, Problem
    from assay.textio import parse_json

    try:
        table = pq.read_table(pa.BufferReader(raw))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(
            [Problem(str(path), None, f"not a readable Parquet file: {exc}")]
        ) from None
    head = (table.schema.metadata or {}).get(PARQUET_KEY)
    if head is None:
        problem = Problem(
            str(path),
            None,
            "a Parquet file without an assay result in its metadata",
            hint="write one with assay evaluate ... -o FILE.parquet",
        )
        raise InputError([problem])
    data = parse_json(head)
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), None, "the assay result metadata is not an object")])
    data["per_query"] = PerQuery(table.replace_schema_metadata(None))
    return data


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

        from assay.redact import scrub_secrets

        head = scrub_secrets(self.model_dump_json(exclude={"per_query"}))
        table = self.per_query_table().table
        table = table.replace_schema_metadata({PARQUET_KEY: head.encode("utf-8")})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        return sink.getvalue().to_pybytes()


def evaluation_policies(result: EvaluationResult) -> list[ScoringPolicy]:
    """The scoring rules an evaluation result's own fields record (for older result files)."""
    from assay.metrics.rules import scoring_policies

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
    from assay.errors import UsageError

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
