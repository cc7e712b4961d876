"""``load_judgments``: read any supported judgment format into a :class:`JudgmentSet`.

Formats: ``jsonl`` (seed 000 qrels), ``csv`` (seed 003 known-item questions),
``json`` (seed 001 list, English or French keys), ``trec`` (qrels, optional
queries file), ``trec-diversity`` (qrels whose second column is the subtopic,
:mod:`assay.judgments.diversity`) and ``beir`` (folder). Every problem found is collected (up to
:data:`assay.core.errors.MAX_PROBLEMS`) and raised as one :class:`InputError`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import InputError, Problem, ProblemLog, UsageError, collecting
from assay.io.formats import detect_format as detect
from assay.io.irds import dataset_name, is_irds, qrels_bytes
from assay.io.textio import read_bytes, read_text
from assay.judgments import graded_csv, srw
from assay.judgments._build import assemble
from assay.judgments.beir import parse_beir
from assay.judgments.diversity import load_diversity
from assay.judgments.models import JudgmentSet
from assay.judgments.trec import parse_trec_qrels, queries_from_qrels, read_queries_file

FORMATS = (
    "jsonl", "csv", "json", "trec", "trec-diversity", "beir", "srw", "srw-queries", "graded-csv"
)  # fmt: skip


def detect_format(path: str | Path) -> str:
    """The judgment format of ``path`` (a folder is BEIR); see :mod:`assay.io.formats`."""

    return detect(path, "judgments")


def load_judgments(
    path: str | Path,
    format: str | None = None,
    *,
    queries: str | Path | None = None,
    split: str = "test",
    corpus_ids: Collection[str] | None = None,
    name: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> JudgmentSet:
    """Read and validate a judgment set.

    ``format`` overrides detection (one of :data:`FORMATS`). ``queries`` is the
    queries file of TREC qrels; ``split`` the BEIR split; with ``corpus_ids`` every
    judged doc id must be one of them. ``name`` defaults to the file stem (folder
    name for BEIR). Raises :class:`InputError` listing every problem found
    (file, line, field, hint) and :class:`UsageError` for a bad argument.
    ``columns`` names the columns of a graded CSV (``{"grade": "score"}``).
    ``irds:NAME`` reads the ir_datasets dataset NAME from the local cache
    (:mod:`assay.io.irds`; ``queries`` then overrides its queries).
    """

    if is_irds(path):
        return _load_irds(str(path), queries, corpus_ids, name)
    p = Path(path)
    if not p.exists():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])
    fmt = (format or detect_format(p)).lower()
    if fmt not in FORMATS:
        raise UsageError(f"unknown judgments format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "beir" and not p.is_dir():
        raise UsageError(f"{p} is not a folder; a BEIR set is a folder with qrels/<split>.tsv")
    if fmt != "beir" and p.is_dir():
        raise UsageError(f"{p} is a folder; use --judgments-format beir or name a file")
    if queries is not None and fmt not in ("trec", "trec-diversity"):
        raise UsageError("a queries file is only used with TREC qrels (format 'trec')")
    ids = (
        None
        if corpus_ids is None
        else (corpus_ids if isinstance(corpus_ids, set | frozenset) else set(corpus_ids))
    )
    set_name = name or (p.name if fmt == "beir" else _stem(p))
    common = {"name": set_name, "path": str(p), "format": fmt}
    with collecting(p) as log:
        if fmt == "beir":
            parsed = parse_beir(p, log, split=split, corpus_ids=ids)
            if parsed is None:
                log.raise_if_any()
            queries_frame, qrels, warnings = parsed
            log.raise_if_any()
            return assemble(
                queries_frame, qrels, warnings=warnings, unmarked_no_answer=True, **common
            )
        if fmt == "trec":
            return _load_trec(p, log, queries, ids, common)
        if fmt == "trec-diversity":
            return load_diversity(p, log, queries, ids, common)

        text = read_text(p, log)
        if text is None:
            log.raise_if_any()
        if fmt in ("srw", "srw-queries", "graded-csv"):
            return _load_behavior_era(fmt, text, log, ids, columns, common)
        if fmt == "jsonl":
            from assay.judgments.jsonl import parse_jsonl as parse
        elif fmt == "json":
            from assay.judgments.jsonlist import parse_json_list as parse
        else:
            from assay.judgments.knownitem import parse_known_item_csv as parse
        queries_frame, qrels = parse(text, log, ids)
        log.raise_if_any()
        return assemble(queries_frame, qrels, **common)
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises


def _load_irds(
    path: str, queries: str | Path | None, ids: Collection[str] | None, name: str | None
) -> JudgmentSet:
    """An ir_datasets dataset's qrels and queries, checked as TREC qrels and a queries file."""

    where = str(queries) if queries is not None else path
    with collecting(path) as log:
        qrels = parse_trec_qrels(qrels_bytes(path), log, ids)
        texts = read_queries_file(queries if queries is not None else path, log)
        log.raise_if_any()
        frame, warnings = queries_from_qrels(qrels, log, texts, where, text_required=True)
        log.raise_if_any()
        label = name or dataset_name(path)
        common = {"name": label, "path": path, "format": "irds"}
        return assemble(frame, qrels, warnings=warnings, unmarked_no_answer=True, **common)
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises


def _load_trec(
    p: Path,
    log: ProblemLog,
    queries: str | Path | None,
    ids: Collection[str] | None,
    common: dict[str, Any],
) -> JudgmentSet:

    qrels = parse_trec_qrels(read_bytes(p), log, ids)
    texts = None
    if queries is not None:
        if not is_irds(queries) and not Path(queries).is_file():
            log.add(None, "queries file not found", path=str(queries), hint="check the path")
        else:
            texts = read_queries_file(queries, log)
    if log:
        log.raise_if_any()
    frame, warnings = queries_from_qrels(
        qrels, log, texts, None if queries is None else str(queries), text_required=True
    )
    log.raise_if_any()
    return assemble(frame, qrels, warnings=warnings, unmarked_no_answer=True, **common)


def _load_behavior_era(
    fmt: str,
    text: str,
    log: ProblemLog,
    ids: Collection[str] | None,
    columns: Mapping[str, str] | None,
    common: dict[str, Any],
) -> JudgmentSet:
    """SRW judgments / query sets and graded CSV (see :mod:`~assay.judgments.srw`)."""

    warnings: list[str] = []
    if fmt == "srw":
        frame, qrels, warnings = srw.parse_srw_judgments(text, log, ids)
    elif fmt == "srw-queries":
        frame, qrels = srw.parse_srw_queryset(text, log, ids)
        log.raise_if_any()
        # nothing is judged yet: every query is reported apart, never scored as 0
        warnings = ["a query set holds no judgments: every query is unjudged"]
        return assemble(frame.assign(no_answer=True), qrels, warnings=warnings, **common)
    else:
        frame, qrels = graded_csv.parse_graded_csv(text, log, ids, columns)
    log.raise_if_any()
    return assemble(frame, qrels, warnings=warnings, unmarked_no_answer=True, **common)


def _stem(p: Path) -> str:
    name = p.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return Path(name).stem
