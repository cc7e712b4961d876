"""Validate judgment sets, runs, corpora, answer cases, assay.toml and result files.

:func:`detect_kind` tells what a file is; :func:`validate_path` loads it with
the right reader and returns a plain-dict report (summary or problems) that the
``assay validate`` command prints as a table or as JSON.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from assay.errors import AssayError, InputError, UsageError
from assay.formats import KINDS


def detect_kind(path: str | Path) -> str:
    """What ``path`` holds (judgments, run, corpus, answers...); see :mod:`assay.formats`."""
    from assay.formats import detect_kind as detect

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
        raise UsageError(f"--kind must be one of {', '.join(KINDS)}; got {kind!r}")
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
            from assay.judgments.load import load_judgments

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
    from assay.runs.io import load_run
    from assay.runs.sidecar import missing_sidecar

    run = load_run(path)
    if (lost := missing_sidecar(run, path)) is not None:
        raise lost  # written by `assay run`, its sidecar gone: evaluate would refuse it
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
    }


def _corpus_summary(
    path: str | Path, id_field: str | None = None, text_fields: Sequence[str] | None = None
) -> dict[str, Any]:
    from assay.corpora import load_corpus  # type: ignore[attr-defined]

    corpus = load_corpus(path, id_field=id_field, text_fields=text_fields)
    return {
        "name": corpus.name,
        "path": str(path),
        "documents": len(corpus),
        "fields": list(corpus.fields),
    }


def _answers_summary(path: str | Path) -> dict[str, Any]:
    from assay.answers import load_cases

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
    """Parse an assay.toml; every system must name a known type and an existing corpus."""
    from assay.errors import Problem
    from assay.systems.config import load_config, system_types

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
    if problems:
        raise InputError(problems)
    return {"path": str(path), "systems": rows}


def _result_summary(path: str | Path) -> dict[str, Any]:
    from assay.results import read_result_file

    result = read_result_file(path)
    return {
        "path": str(path),
        "result_kind": result.kind,
        "schema_version": result.schema_version,
        "assay_version": result.assay_version,
        "created_at": result.created_at,
    }
