"""Validate judgment sets, runs and corpora without evaluating anything.

:func:`detect_kind` tells what a file is; :func:`validate_path` loads it with
the right reader and returns a plain-dict report (summary or problems) that the
``assay validate`` command prints as a table or as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from assay.errors import AssayError, InputError, UsageError

KINDS = ("judgments", "run", "corpus")
_JUDGMENT_KEYS = {
    "relevant",
    "pertinents",
    "non_relevant",
    "non_pertinents",
    "no_answer",
    "query",
    "requête",
    "question",
}
_CSV_JUDGMENT_COLUMNS = {"question_id", "expected_id", "expected_ids", "question"}


def detect_kind(path: str | Path) -> str:
    """Guess whether ``path`` holds judgments, a run or a corpus.

    A folder with ``corpus.jsonl``/``queries.jsonl`` is a BEIR judgment set. A
    JSONL object with ``results`` is a run; with ``_id``/``doc_id`` and ``text``
    but no judgment key, a corpus. Whitespace lines of 6 fields are a TREC run,
    4 fields TREC qrels. A CSV whose header names questions is judgments,
    another CSV a corpus. Anything else is taken as judgments.
    """
    from assay.textio import read_bytes

    p = Path(path)
    if p.is_dir():
        return "judgments"
    if not p.is_file():
        raise UsageError(f"file not found: {p}")
    head = read_bytes(p)[:65536].decode("utf-8", errors="replace")
    lines = [ln.strip() for ln in head.split("\n")]
    first = next((ln for ln in lines if ln and not ln.startswith("#")), "")
    if first.startswith("["):
        return "judgments"
    if first.startswith("{"):
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            return "judgments"
        keys = set(obj) if isinstance(obj, dict) else set()
        if "results" in keys or "ranking" in keys:
            return "run"
        if keys & _JUDGMENT_KEYS:
            return "judgments"
        if keys & {"_id", "doc_id", "id"} and keys & {"text", "title", "body", "contents"}:
            return "corpus"
        return "judgments"
    if "," in first and len(first.split()) not in (4, 6):
        columns = {c.strip() for c in first.split(",")}
        from assay.judgments.graded_csv import sniff as graded

        return "judgments" if columns & _CSV_JUDGMENT_COLUMNS or graded(first) else "corpus"
    if len(first.split()) == 6:
        return "run"
    return "judgments"


def corpus_ids_of(path: str | Path) -> frozenset[str]:
    """Doc ids of a corpus file or BEIR folder, for checking judged doc ids."""
    from assay.judgments.beir import find_file, read_corpus_ids

    p = Path(path)
    if p.is_dir():
        found = find_file(p, "corpus.jsonl")
        if found is None:
            raise UsageError(f"no corpus.jsonl in {p}")
        p = found
    if not p.is_file():
        raise UsageError(f"corpus not found: {p}")
    if ".jsonl" in [s.lower() for s in p.suffixes]:
        return frozenset(read_corpus_ids(p))
    from assay.corpora import load_corpus

    return frozenset(load_corpus(p).ids)


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
