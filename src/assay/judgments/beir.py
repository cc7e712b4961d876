"""BEIR folders: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

Only the queries judged in the split are in the set. Doc ids of the qrels are
checked against the corpus ids (read fast: only ``_id``). Grades are whole
numbers, negative ones judged non-relevant. Like TREC, BEIR cannot mark a
no-answer query: a judged query with no grade >= 1 is scored as trec_eval
scores it (0 on every ratio; one warning counts them).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd

from assay.core.errors import ProblemLog
from assay.corpora.ids import read_corpus_ids
from assay.io.formats import find_file
from assay.io.irds import is_irds
from assay.io.textio import decode, read_bytes
from assay.judgments._build import check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.trec import queries_from_qrels, read_queries_file

BEIR_HEADER = ("query-id", "corpus-id", "score")


def is_beir_folder(path: str | Path) -> bool:
    """True for a folder holding ``corpus.jsonl`` or ``queries.jsonl`` and ``qrels/``."""
    p = Path(path)
    return p.is_dir() and (
        find_file(p, "corpus.jsonl") is not None or find_file(p, "queries.jsonl") is not None
    )


def corpus_of(judgments: str | Path | None, corpus: str | Path | None = None) -> Path | None:
    """The corpus a built-in system reads: ``corpus`` if given, else the BEIR folder's own.

    A BEIR folder of judgments carries its corpus (``corpus.jsonl`` or ``.gz``), so
    every procedure that builds a system from the judgments it scores takes it from
    there when no corpus is named. ``None`` when neither gives one.
    """
    if corpus is not None:
        return Path(corpus)

    if judgments is not None and is_irds(judgments):
        return Path(str(judgments))  # the documents of the same ir_datasets dataset
    if judgments is not None and Path(judgments).is_dir():
        return find_file(judgments, "corpus.jsonl")
    return None


def _beir_files(root: Path, split: Any, log: ProblemLog) -> tuple[Path, Path, Path | None] | None:
    """``(qrels, queries, corpus or None)`` of a BEIR folder's ``split``; ``None`` when the
    split name is not one, or its qrels or the queries file is missing (logged)."""
    if not isinstance(split, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", split):
        log.add(
            None,
            f"split {split!r} is not a split name (letters, digits, '_', '.', '-'; no paths)",
            field="split",
            hint="e.g. --split test or --split dev",
        )
        return None
    qrels_path = root / "qrels" / f"{split}.tsv"
    queries_path = find_file(root, "queries.jsonl")
    if not qrels_path.is_file():
        splits = sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
        log.add(
            None,
            f"no qrels for split {split!r} ({qrels_path} not found)",
            field="split",
            hint=f"choose one of: {', '.join(splits) or 'none found'}",
            path=str(root),
        )
        return None
    if queries_path is None:
        log.add(
            None,
            "queries.jsonl not found",
            path=str(root),
            hint="a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv",
        )
        return None
    return qrels_path, queries_path, find_file(root, "corpus.jsonl")


def parse_beir(
    folder: str | Path,
    log: ProblemLog,
    *,
    split: str = "test",
    corpus_ids: Collection[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]] | None:
    """Read and check a BEIR folder; returns (queries frame, qrels frame, warnings).

    Returns ``None`` when a fatal problem (missing file, bad header) was logged.
    """
    root = Path(folder)
    files = _beir_files(root, split, log)
    if files is None:
        return None
    qrels_path, queries_path, corpus_path = files
    if corpus_ids is None and corpus_path is not None:
        corpus_ids = read_corpus_ids(corpus_path)
    data = read_bytes(qrels_path)
    where = str(qrels_path)
    text = decode(data, log, where)
    if text is None:
        return None
    first = text.split("\n", 1)[0].strip().split()
    header = tuple(first) == BEIR_HEADER
    if not header:
        log.add(
            1,
            f"expected the header {' '.join(BEIR_HEADER)!r}, found {' '.join(first)!r}",
            path=where,
            hint="write the header line query-id<TAB>corpus-id<TAB>score",
        )
        return None
    sub = log.for_path(where)
    frame = read_table(
        data,
        text,
        ("query_id", "doc_id", "grade"),
        sub,
        header=True,
        comments=False,
        layout="query-id corpus-id score",
    )
    if frame.empty:
        log.add(
            None,
            f"no judgments in split {split!r}",
            path=where,
            hint="add query-id, corpus-id, score lines",
        )
        return None
    qrels = check_qrels_frame(frame, sub, corpus_ids, grade_field="score", doc_field="corpus-id")
    texts = read_queries_file(queries_path, log)
    queries, _ = queries_from_qrels(qrels, sub, texts, str(queries_path), text_required=True)
    extra = len(texts) - len(queries)
    warnings = (
        [f"{extra} queries of queries.jsonl are not judged in split {split!r}"] if extra else []
    )
    return queries, qrels, warnings
