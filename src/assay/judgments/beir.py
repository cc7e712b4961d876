"""BEIR folders: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

Only the queries judged in the split are in the set. Doc ids of the qrels are
checked against the corpus ids (read fast: only ``_id``). Like TREC, BEIR cannot
mark a no-answer query: queries with no grade >= 1 become no-answer (warning).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

import pandas as pd

from assay.errors import ProblemLog
from assay.judgments._build import check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.trec import queries_from_qrels, read_queries_file
from assay.safejson import loads as safe_loads
from assay.textio import decode, read_bytes

BEIR_HEADER = ("query-id", "corpus-id", "score")
_ID_KEYS = ("_id", "doc_id", "id")


def find_file(folder: Path, stem: str) -> Path | None:
    """``folder/stem`` or its ``.gz`` twin, whichever exists."""
    for name in (stem, stem + ".gz"):
        if (folder / name).is_file():
            return folder / name
    return None


def is_beir_folder(path: str | Path) -> bool:
    """True for a folder holding ``corpus.jsonl`` or ``queries.jsonl`` and ``qrels/``."""
    p = Path(path)
    return p.is_dir() and (
        find_file(p, "corpus.jsonl") is not None or find_file(p, "queries.jsonl") is not None
    )


def read_corpus_ids(path: str | Path) -> set[str]:
    """Doc ids of a JSONL corpus (``_id``, ``doc_id`` or ``id``), without the texts.

    Uses pyarrow's JSON reader with a schema holding only the id keys; falls
    back to Python's json when pyarrow cannot type the ids (e.g. mixed types).
    """
    import pyarrow as pa
    import pyarrow.json as pj

    data = read_bytes(path)
    schema = pa.schema([(k, pa.string()) for k in _ID_KEYS])
    try:
        table = pj.read_json(
            pa.BufferReader(data),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            ),
        )
        for key in _ID_KEYS:
            col = table.column(key)
            if col.null_count < len(col):
                return set(col.drop_null().to_pylist())
        return set()
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        ids: set[str] = set()
        for line in data.decode("utf-8", errors="replace").split("\n"):
            if line.strip():
                obj = safe_loads(line)
                key = next((k for k in _ID_KEYS if k in obj), None)
                if key is not None:
                    ids.add(str(obj[key]))
        return ids


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
    corpus_path = find_file(root, "corpus.jsonl")
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
