"""Validate judgment sets, runs and corpora without evaluating anything.

:func:`detect_kind` tells what a file is; :func:`validate_path` loads it with
the right reader and returns a plain-dict report (summary or problems) that the
``assay validate`` command prints as a table or as JSON.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from assay.errors import AssayError, InputError, UsageError
from assay.formats import KINDS


def detect_kind(path: str | Path) -> str:
    """Whether ``path`` holds judgments, a run or a corpus; see :mod:`assay.formats`."""
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
) -> dict[str, Any]:
    """Load ``path`` as ``kind`` (detected when ``None``) and report on it.

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
        else:
            report["summary"] = _corpus_summary(path)
        report["ok"] = True
    except InputError as exc:
        report["problems"] = [str(p) for p in exc.problems]
        report["truncated"] = exc.truncated
    except AssayError as exc:
        report["problems"] = [str(exc)]
    return report


def _run_summary(path: str | Path) -> dict[str, Any]:
    from assay.runs.io import load_run

    run = load_run(path)
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


def _corpus_summary(path: str | Path) -> dict[str, Any]:
    from assay.corpora import load_corpus  # type: ignore[attr-defined]

    corpus = load_corpus(path)
    return {
        "name": corpus.name,
        "path": str(path),
        "documents": len(corpus),
        "fields": list(corpus.fields),
    }
