"""The base of every result model, the registry of result kinds, and reading result files.

:class:`ResultModel` writes a result as JSON and reads it back with errors that
name the file and field; :data:`RESULT_MODELS` maps each result kind to its
model; :data:`MIGRATIONS` upgrades older schema versions step by step;
:func:`read_result_file` reads a result file (JSON, or an evaluation written as
Parquet) into its model. The evaluation result's own models live in
:mod:`assay.results.models`, which re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field

from assay import __version__
from assay.core.errors import InputError, Problem, UsageError
from assay.io.fileio import check_input
from assay.io.formats import PARQUET_RESULT_KEY as PARQUET_KEY
from assay.io.safejson import dumps
from assay.io.textio import parse_json, read_bytes
from assay.results.perquery import PerQuery


def utc_now() -> str:
    """The current time, UTC, ISO 8601 to the second (result timestamps)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def current_assay_version() -> str:
    """The running assay's version (stamped into every result)."""

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

        head = self.model_dump(mode="json", exclude={name})
        ordered: dict[str, Any] = {}
        for key in (*type(self).model_fields, *head):
            if key == name:
                ordered[key] = orjson.Fragment(fragment)
            elif key in head:
                ordered[key] = head[key]
        return dumps(ordered, indent=indent)

    #: What this result's failures are, as ``--max-failed`` messages name them.
    failed_what: ClassVar[str] = "failed queries"

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """(run name, failed query ids) of each run this result scored, for ``--max-failed``
        (:mod:`assay.core.failures`); none by default."""
        return []

    def exit_code(self) -> int:
        """The status the command that made this result ends with, failed queries aside:
        0 when it did its job, 1 when it ran and says no (a gate that fails, nothing scored)."""
        return 0

    def exit_message(self) -> str | None:
        """What the command says on stderr (an ``error:`` line) when it ends with a non-zero
        :meth:`exit_code`; None (the default): nothing more than its output."""
        return None

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Read a result file of this kind; errors name the file and field."""

        kind = cls.model_fields["kind"].default
        result = read_result_file(path, expect=kind)
        if not isinstance(result, cls):
            raise InputError(
                [Problem(str(path), None, f"not an assay {kind} result file", field="kind")]
            )
        return result


#: Result kind -> "module:Class" of its model: the one registry every reader uses.
RESULT_MODELS: dict[str, str] = {
    "evaluation": "assay.results.models:EvaluationResult",
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
    "rubric_judge": "assay.judges.panel:RubricJudgeResult",
    "pairwise_judge": "assay.judges.pairwise:PairwiseJudgeResult",
    "implicit_judgments": "assay.behavior.implicit:ImplicitJudgments",
    "synthetic-queries": "assay.generate.queries:SyntheticQueries",
    "validation": "assay.procedures.validation:ValidationResult",
    "tuning": "assay.tuning.result:TuningResult",
}

#: (kind, schema_version) -> a function upgrading a payload by one version. A reader
#: migrates older files step by step instead of refusing them.
MIGRATIONS: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {}


def result_model(kind: str) -> type[ResultModel]:
    """The model class of result ``kind``; raises KeyError for unknown kinds."""
    import importlib

    module, name = RESULT_MODELS[kind].split(":")
    return getattr(importlib.import_module(module), name)


def migrate(data: dict[str, Any], source: str = "result") -> dict[str, Any]:
    """``data`` upgraded to the schema version its kind's model writes (never mutated)."""

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
