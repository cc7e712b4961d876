"""Format detection, written once: what a file holds and in which format.

Every reader that is not told a format asks :func:`detect_format` with the kind
of file it reads (judgments, run or corpus); ``assay validate`` and the
swapped-arguments check ask :func:`detect_kind`. Both look at the name first
(``.gz`` looked through), then at the first line that is neither blank nor a
``#`` comment (:func:`first_line`; BOM and gzip looked through):

* ``[`` a JSON list of queries (judgments ``json``);
* ``{`` a JSON object: with ``results`` or ``ranking`` a run, with a judgment
  key (``relevant``, ``query``...) judgments, with an id and a text field a
  corpus (all ``jsonl``);
* commas and neither 4 nor 6 fields: CSV, judgments when the header names
  questions, else a corpus;
* 6 whitespace-separated fields: a TREC run; anything else TREC qrels.

Two judgment formats are told by content whatever the name: a JSON object
holding ``"judgmentRatings"`` is SRW judgments (``srw``), one holding
``"querySetQueries"`` an SRW query set (``srw-queries``); a CSV header naming a
document and a grade column (:data:`GRADED_CSV_COLUMNS`) and no
question column is a graded CSV (``graded-csv``).

A fourth kind, ``pairs``, is not a judgment set: a pair-label, review or pool
file of the model judges, one (query, document) pair per JSON line. It is named
``.jsonl``, ``.ndjson`` or ``.json`` and its first line is a JSON object with a
``doc_id``; :func:`detect_pairs` tells it (``review`` when that line has a
``reviewer_grade``, else ``labels``).
"""

from __future__ import annotations

from pathlib import Path

from assay.core.errors import UsageError
from assay.io.textio import parse_json, read_head

#: What a file may hold (``assay validate --kind``); pair-label files are told
#: apart by :func:`detect_pairs`.
KINDS = ("judgments", "run", "corpus", "answers", "config", "result")
#: Keys only answer cases (``assay answers``) have.
_ANSWER_KEYS = {"case_id", "response", "expected_status", "support"}
#: The format each file name suffix means, per kind (``.gz`` looked through).
SUFFIXES: dict[str, dict[str, str]] = {
    "judgments": {
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".csv": "csv",
        ".json": "json",
        ".qrels": "trec",
    },
    "run": {
        ".jsonl": "jsonl",
        ".json": "jsonl",
        ".ndjson": "jsonl",
        ".trec": "trec",
        ".run": "trec",
        ".txt": "trec",
        ".tsv": "trec",
        ".res": "trec",
    },
    "corpus": {
        ".csv": "csv",
        ".tsv": "tsv",
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "jsonl",
    },
    "pairs": {
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "jsonl",
    },
}
CORPUS_FORMATS = ("csv", "tsv", "jsonl", "beir")
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
_ID_KEYS = {"_id", "doc_id", "id"}
_TEXT_KEYS = {"text", "title", "body", "contents"}
_HEAD = 65536


#: Column names a graded CSV accepts for each role (first: the canonical name).
GRADED_CSV_COLUMNS: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid", "queryid"),
    "query": ("query", "query_text", "keywords", "user_query", "search_term"),
    "doc_id": ("doc_id", "docid", "doc", "document_id", "docno"),
    "grade": ("grade", "rating", "relevance", "judgment", "label"),
}


def find_file(folder: str | Path, name: str) -> Path | None:
    """``folder/name`` or its ``.gz`` twin, whichever exists."""
    for candidate in (name, name + ".gz"):
        if (Path(folder) / candidate).is_file():
            return Path(folder) / candidate
    return None


def beir_corpus_file(folder: str | Path) -> Path | None:
    """The ``corpus.jsonl`` (or ``.gz``) of a BEIR folder, if it has one."""
    return find_file(folder, "corpus.jsonl")


def format_from_name(path: str | Path, kind: str) -> str | None:
    """The format of a ``kind`` file implied by its name alone, or ``None``."""
    name = Path(path).name.lower().removesuffix(".gz")
    if kind == "corpus" and name == "corpus.jsonl":
        return "beir"
    return SUFFIXES[kind].get(Path(name).suffix)


def detect_format(path: str | Path, kind: str) -> str:
    """The format of the ``kind`` file (or folder) at ``path``; see the module rules.

    A folder is BEIR. A corpus must be named for its format (raises
    :class:`UsageError` otherwise); judgments and runs fall back on their content.
    """
    p = Path(path)
    if p.is_dir():
        if kind == "corpus" and beir_corpus_file(p) is None:
            raise UsageError(f"{p} is a folder without corpus.jsonl; give the corpus file itself")
        return "beir"
    if kind == "judgments":
        by_content = _judgment_format_by_content(_head(p))
        if by_content is not None:
            return by_content
    by_name = format_from_name(p, kind)
    if by_name is not None:
        return by_name
    if kind == "corpus":
        raise UsageError(
            f"cannot tell the corpus format of {p.name}; pass format= (--corpus-format) "
            f"as one of {', '.join(CORPUS_FORMATS)}"
        )
    fmt = sniff_line(first_line(p))[1]
    if kind == "run":
        return "jsonl" if fmt == "jsonl" else "trec"
    return fmt


def detect_kind(path: str | Path) -> str:
    """What ``path`` holds: judgments (a folder: BEIR), a run, a corpus, answer cases,
    an ``assay.toml`` (``config``) or an assay result file (``result``); an ir_datasets
    name (``irds:NAME``) is judgments."""
    if str(path).startswith("irds:"):
        return "judgments"
    p = Path(path)
    if p.is_dir():
        return "judgments"
    if not p.is_file():
        raise UsageError(f"file not found: {p}")
    if p.suffix.lower() == ".toml":
        return "config"
    if result_kind(p) is not None:
        return "result"
    return sniff_line(first_line(p))[0]


def result_kind(path: str | Path) -> str | None:
    """The kind of the assay result file at ``path`` (``"evaluation"``...), else ``None``.

    A result file is one JSON object that has, among its first keys, a
    ``schema_version`` and a ``kind`` naming the result kind; a JSONL run or an
    answer case never has both. Anything but a regular file (a FIFO would
    block) is not a result file.
    """
    import re

    p = Path(path)
    if not p.is_file():
        return None
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if head[:4] == b"PAR1":  # an evaluation's per-query table: the result in its metadata
        head = _parquet_result_head(p)
    if not head.lstrip().startswith(b"{") or b'"schema_version"' not in head:
        return None
    mark = re.search(rb'"kind"\s*:\s*"([A-Za-z_]+)"', head)
    return mark.group(1).decode() if mark else None


#: Parquet schema-metadata key holding the rest of an assay result (its JSON).
PARQUET_RESULT_KEY = b"assay.result"


def _parquet_result_head(path: Path) -> bytes:
    """The first bytes of the result JSON in a Parquet file's metadata (b"" if none)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowException, OSError):
        return b""
    return (metadata.get(PARQUET_RESULT_KEY) or b"")[:4096]


def is_result_file(path: str | Path, kind: str) -> bool:
    """True when ``path`` holds an assay result of ``kind`` (see :func:`result_kind`)."""
    return result_kind(path) == kind


def _head(p: Path) -> str:
    """The first bytes of ``p`` as text (BOM and gzip looked through)."""

    return read_head(p, _HEAD).decode("utf-8", errors="replace")


def _judgment_format_by_content(head: str) -> str | None:
    """Judgment formats told by content whatever the name: SRW JSON, graded CSV."""
    return _srw_format(head) or ("graded-csv" if _is_graded_csv(head) else None)


def _srw_format(head: str) -> str | None:
    """``srw`` or ``srw-queries`` when the start of a JSON text looks like an SRW file."""
    if not head.lstrip().startswith("{"):
        return None
    if '"judgmentRatings"' in head:
        return "srw"
    if '"querySetQueries"' in head:
        return "srw-queries"
    return None


def _is_graded_csv(head: str) -> bool:
    """True when the header line names a document and a grade column and no question."""
    first = head.lstrip().split("\n", 1)[0]
    names = {c.strip().strip('"').lower() for c in first.split(",")}
    if names & _CSV_JUDGMENT_COLUMNS:
        return False  # a known-item question CSV
    return bool(names & set(GRADED_CSV_COLUMNS["doc_id"])) and bool(
        names & set(GRADED_CSV_COLUMNS["grade"])
    )


def first_line(path: str | Path) -> str:
    """The first line of ``path`` that is neither blank nor a ``#`` comment (stripped).

    BOM and gzip are looked through; only the first 64 KiB are read as text.
    """
    lines = (line.strip() for line in _head(Path(path)).split("\n"))
    return next((line for line in lines if line and not line.startswith("#")), "")


def detect_pairs(path: str | Path) -> str | None:
    """``labels`` or ``review`` when ``path`` is a ``pairs`` file (module rules), else ``None``.

    Pair labels and pools are both ``labels`` here (a pool line is a pair without
    a grade); a folder, another name or an unreadable file is ``None``.
    """
    p = Path(path)
    if not p.is_file() or format_from_name(p, "pairs") is None:
        return None
    try:
        obj = _json_object(first_line(p))
    except (OSError, EOFError):
        return None
    if obj is None or "doc_id" not in obj:
        return None
    return "review" if "reviewer_grade" in obj else "labels"


def _json_object(line: str) -> dict | None:
    """The JSON object on ``line``, or ``None`` when it is not one."""
    import json

    try:
        obj = parse_json(line)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def sniff_line(first: str) -> tuple[str, str]:
    """(kind, format) told by the first line of a file (stripped; see the module rules)."""
    if first.startswith("["):
        return "judgments", "json"
    if first.startswith("{"):
        return _json_kind(first), "jsonl"
    if "," in first and len(first.split()) not in (4, 6):
        columns = {c.strip() for c in first.split(",")}
        judged = columns & _CSV_JUDGMENT_COLUMNS or _is_graded_csv(first)
        return ("judgments" if judged else "corpus"), "csv"
    if len(first.split()) == 6:
        return "run", "trec"
    return "judgments", "trec"


def _json_kind(first: str) -> str:
    obj = _json_object(first)
    keys = set(obj) if obj is not None else set()
    if "results" in keys or "ranking" in keys:
        return "run"
    if keys & _ANSWER_KEYS:
        return "answers"
    if keys & _JUDGMENT_KEYS:
        return "judgments"
    if keys & _ID_KEYS and keys & _TEXT_KEYS:
        return "corpus"
    return "judgments"
