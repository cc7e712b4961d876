"""Versioned result models: what ``evaluate`` produces and every renderer reads.

Renderers (terminal, Markdown, HTML, JSON) and the history store read these
models and hold no scoring logic of their own. ``schema_version`` changes when
a field changes meaning; readers refuse versions they do not know.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"


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

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Read a result file written by :meth:`to_json`; errors name the file and field."""
        from pydantic import ValidationError

        from assay.errors import InputError, Problem

        kind = cls.model_fields["kind"].default if "kind" in cls.model_fields else "result"
        from assay.fileio import check_input

        check_input(path)
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
            result = cls.model_validate_json(text)
        except UnicodeDecodeError as exc:
            raise InputError([Problem(str(path), None, f"not UTF-8 text: {exc.reason}")]) from None
        except ValidationError as exc:
            problems = [
                Problem(
                    str(path),
                    None,
                    f"not an assay {kind} result file: {err.get('msg', 'invalid value')}",
                    field=".".join(str(x) for x in err.get("loc", ())) or None,
                    hint="write result files with --format json -o FILE.json",
                )
                for err in exc.errors()[:20]
            ]
            raise InputError(problems) from None
        expected = cls.model_fields["schema_version"].default
        if result.schema_version != expected:
            raise InputError(
                [
                    Problem(
                        str(path),
                        None,
                        f"unknown schema_version {result.schema_version!r} "
                        f"(this assay reads {expected!r})",
                        field="schema_version",
                        hint="upgrade assay to read this result",
                    )
                ]
            )
        return result


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
    warnings: list[str] = Field(default_factory=list)


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
    failures: list[dict[str, Any]] = Field(
        default_factory=list, description="each failed call: query_id, error, attempts"
    )
    warnings: list[str] = Field(default_factory=list)


class Policy(BaseModel):
    """How missing queries and tied scores were handled."""

    missing: Literal["zero", "skip"] = "zero"
    ties: Literal["score", "given"] = "score"


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
    per_query: list[dict[str, Any]] = Field(default_factory=list)
    no_answer: list[dict[str, Any]] = Field(
        default_factory=list, description="no-answer queries, reported apart from ranking scores"
    )
    environment: dict[str, Any] = Field(default_factory=dict)
    abstention: dict[str, Any] | None = Field(
        None,
        description="with --abstain-below: abstention accuracy on no-answer queries and "
        "the false-abstention rate on answerable ones, with counts",
    )

    def per_query_frame(self):  # -> pandas.DataFrame
        """Per-query rows as a pandas DataFrame indexed by ``query_id``."""
        import pandas as pd

        frame = pd.DataFrame(self.per_query)
        if frame.empty:
            frame = pd.DataFrame(columns=["query_id", "text", "first_rel_rank", *self.metrics])
        return frame.set_index("query_id")
