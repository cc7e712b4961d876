"""Validate judgment sets, runs, corpora, answer cases, assay.toml and result files.

:func:`detect_kind` tells what a file is; :func:`validate_path` loads it with
the right reader and returns a plain-dict report (summary or problems);
:func:`validate_files` gathers them in a :class:`ValidationResult`, the result
``assay validate`` prints as a table or writes as JSON.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.answers import load_cases
from assay.core.bounds import one_of
from assay.core.errors import AssayError, InputError, Problem, UsageError
from assay.core.words import count
from assay.corpora import load_corpus, read_corpus_ids
from assay.io.config_errors import ConfigFault, file_text, table_problem
from assay.io.formats import KINDS
from assay.io.formats import detect_kind as detect
from assay.judgments.load import FORMATS, load_judgments
from assay.providers.model_config import model_from_table
from assay.results.files import ResultModel
from assay.results.models import read_result_file
from assay.runs.io import load_run
from assay.runs.sidecar import provenance_note, read_sidecar
from assay.systems.config import load_config, system_types

VALIDATION_SCHEMA_VERSION = "1"


class ValidateOptions(BaseModel):
    """How ``assay validate`` reads the files it checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str | None = Field(
        None,
        description="kind of every file: judgments, run, corpus, answers, config or result "
        "(None: detected per file)",
    )
    judgments_format: str | None = Field(
        None, description="judgment format: jsonl, csv, json, trec or beir (None: detected)"
    )
    queries: Path | None = Field(None, description="queries file of TREC qrels (TSV or JSONL)")
    split: str = Field("test", description="BEIR split")
    corpus: Path | None = Field(
        None, description="corpus (JSONL or BEIR folder): judged doc ids must exist in it"
    )
    id_field: str | None = Field(None, description="the corpus's id field (None: detected)")
    text_fields: tuple[str, ...] | None = Field(
        None, description="the corpus's text fields (None: detected)"
    )

    def model_post_init(self, context: Any, /) -> None:
        """Check the choices (a UsageError naming ``kind`` or ``judgments_format``)."""

        try:
            if self.kind is not None:
                one_of("kind", self.kind, KINDS)
            if self.judgments_format is not None:
                one_of("judgments_format", self.judgments_format, FORMATS)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


class FileReport(BaseModel):
    """What :func:`validate_path` found in one file (see there)."""

    path: str = Field(description="the file checked")
    kind: str | None = Field(description="its kind (None: not told)")
    ok: bool = Field(description="True when it has no problem")
    summary: dict[str, Any] | None = Field(description="what it holds, when it is valid")
    problems: list[str] = Field(description="each naming file, line, field and a hint")
    truncated: bool = Field(description="True when more problems were left unsaid")


class ValidationResult(ResultModel):
    """The reports of the files :func:`validate_files` checked, in the order given
    (what ``assay validate`` prints, and writes with ``-o FILE.json``)."""

    schema_version: str = VALIDATION_SCHEMA_VERSION
    kind: Literal["validation"] = "validation"
    reports: list[FileReport] = Field(description="one per file, in the order given")

    @property
    def failed(self) -> list[str]:
        """Paths of the files with problems."""
        return [r.path for r in self.reports if not r.ok]

    def exit_code(self) -> int:
        """2 when any file has problems (bad input), else 0."""
        return 2 if self.failed else 0

    def failure(self) -> str | None:
        """``'1 of 2 files failed validation'``, or None when every file is valid."""

        if not self.failed:
            return None
        return f"{len(self.failed)} of {count(len(self.reports), 'file')} failed validation"

    def exit_message(self) -> str | None:
        """The :meth:`failure` (``assay validate`` ends with it as an ``error:`` line)."""
        return self.failure()


def validate_files(files: Sequence[str | Path], options: ValidateOptions) -> ValidationResult:
    """Check each file of ``files`` as ``options`` say, without evaluating anything.

    With ``options.corpus``, judged doc ids must be among its ids. Bad files
    are reported (never raised); see :func:`validate_path`.
    """

    ids = None
    if options.corpus is not None:
        ids = read_corpus_ids(options.corpus, id_field=options.id_field)
    reports = [
        validate_path(
            f, kind=options.kind, judgments_format=options.judgments_format,
            queries=options.queries, split=options.split, corpus_ids=ids,
            id_field=options.id_field, text_fields=options.text_fields,
        )
        for f in files
    ]  # fmt: skip
    return ValidationResult(reports=[FileReport(**r) for r in reports])


def detect_kind(path: str | Path) -> str:
    """What ``path`` holds (judgments, run, corpus, answers...); see :mod:`assay.io.formats`."""

    return detect(path)


def validate_path(
    path: str | Path,
    *,
    kind: str | None = None,
    judgments_format: str | None = None,
    queries: str | Path | None = None,
    split: str = "test",
    corpus_ids: Collection[str] | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Load ``path`` as ``kind`` (detected when ``None``) and report on it.

    ``id_field`` and ``text_fields`` name a corpus's fields, as in ``load_corpus``.

    Returns ``{"path", "kind", "ok", "summary", "problems", "truncated"}``:
    ``summary`` (dict) when the file is valid, ``problems`` (list of str, each
    naming file, line, field and a hint) when it is not. Never raises for bad
    input; raises :class:`UsageError` only for an unknown ``kind``.
    """
    if kind is not None and kind not in KINDS:
        raise UsageError(f"`kind` must be one of {', '.join(KINDS)}; got {kind!r}", "kind")
    report: dict[str, Any] = {
        "path": str(path),
        "kind": kind,
        "ok": False,
        "summary": None,
        "problems": [],
        "truncated": False,
    }
    try:
        report["kind"] = kind = kind or detect_kind(path)
        if kind == "judgments":
            js = load_judgments(
                path, judgments_format, queries=queries, split=split, corpus_ids=corpus_ids
            )
            report["summary"] = js.summary()
        elif kind == "run":
            report["summary"] = _run_summary(path)
        elif kind == "answers":
            report["summary"] = _answers_summary(path)
        elif kind == "config":
            report["summary"] = _config_summary(path)
        elif kind == "result":
            report["summary"] = _result_summary(path)
        else:
            report["summary"] = _corpus_summary(path, id_field, text_fields)
        report["ok"] = True
    except InputError as exc:
        report["problems"] = [str(p) for p in exc.problems]
        report["truncated"] = exc.truncated
    except AssayError as exc:
        report["problems"] = [str(exc)]
    return report


def _run_summary(path: str | Path) -> dict[str, Any]:

    run = load_run(path)
    note = provenance_note(run, path, read_sidecar(path))
    frame = run.frame
    per_query = frame.groupby("query_id", sort=False, observed=True).size()
    return {
        "name": run.name,
        "path": str(path),
        "queries": int(per_query.size),
        "rows": len(frame),
        "min_depth": int(per_query.min()) if per_query.size else 0,
        "max_depth": int(per_query.max()) if per_query.size else 0,
        "has_scores": bool(run.has_scores),
        **({"warnings": [note]} if note else {}),  # the sidecar is not this run's
    }


def _corpus_summary(
    path: str | Path, id_field: str | None = None, text_fields: Sequence[str] | None = None
) -> dict[str, Any]:

    corpus = load_corpus(path, id_field=id_field, text_fields=text_fields)
    return {
        "name": corpus.name,
        "path": str(path),
        "documents": len(corpus),
        "fields": list(corpus.fields),
    }


def _answers_summary(path: str | Path) -> dict[str, Any]:

    cases = load_cases(path)
    statuses: dict[str, int] = {}
    for case in cases.cases:
        statuses[case.expected_status] = statuses.get(case.expected_status, 0) + 1
    return {
        "name": cases.name,
        "path": str(path),
        "version": cases.version,
        "cases": len(cases),
        "expected_status": ", ".join(f"{k}: {v}" for k, v in statuses.items()) or "-",
        "metadata_fields": cases.metadata_fields(),
    }


def _config_summary(path: str | Path) -> dict[str, Any]:
    """Parse an assay.toml; every system must name a known type and an existing corpus, every
    model table must be one the commands accept."""

    data = load_config(path)
    systems = data.get("systems", {})
    known, base = system_types(), Path(path).resolve().parent
    problems, rows = [], []
    for name, table in systems.items():
        kind = str(table.get("type", ""))
        if kind not in known and ":" not in kind:
            problems.append(
                Problem(
                    str(path),
                    None,
                    f"unknown system type {kind!r}",
                    field=f"systems.{name}.type",
                    hint=f"use one of {', '.join(known)}, or module:function",
                )
            )
        corpus = table.get("corpus")
        if isinstance(corpus, str) and not (base / corpus).exists():
            problems.append(
                Problem(
                    str(path),
                    None,
                    f"corpus {corpus!r} not found (looked in {base})",
                    field=f"systems.{name}.corpus",
                    hint="paths are relative to the assay.toml",
                )
            )
        rows.append(f"{name} ({kind}" + (f", corpus {corpus})" if corpus else ")"))
    models, model_problems = _check_models(path, data.get("models", {}))
    problems += model_problems
    if problems:
        raise InputError(problems)
    summary: dict[str, Any] = {"path": str(path), "systems": rows}
    if models:
        summary["models"] = models
    return summary


def _check_models(path: str | Path, models: Any) -> tuple[list[str], list[Problem]]:
    """Each ``[models.NAME]`` table checked as the commands read it
    (:func:`~assay.providers.model_config.model_from_table`: keys, types, ranges,
    ``${VAR}`` set): rows ``NAME (model)`` and the problems found."""

    rows, problems = [], []  # tables of tables: checked when the file was read
    for name, table in models.items():
        try:
            model = model_from_table(name, table, source=path)
        except ConfigFault as exc:
            problems.extend(exc.problems)
        except UsageError as exc:  # an unset ${VAR}
            text = str(exc).split(": ", 1)[-1]
            problems.append(table_problem(path, file_text(path), f"models.{name}", "", text))
        else:
            rows.append(f"{name} ({model.shown()['model']})")
    return rows, problems


def _result_summary(path: str | Path) -> dict[str, Any]:

    result = read_result_file(path)
    return {
        "path": str(path),
        "result_kind": result.kind,
        "schema_version": result.schema_version,
        "assay_version": result.assay_version,
        "created_at": result.created_at,
    }
