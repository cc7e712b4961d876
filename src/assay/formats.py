"""Format detection, written once: what a file holds and in which format.

Every reader that is not told a format asks :func:`detect_format` with the kind
of file it reads (judgments, run or corpus); ``assay validate`` and the
swapped-arguments check ask :func:`detect_kind`. Both look at the name first
(``.gz`` looked through), then at the first line that is neither blank nor a
``#`` comment (BOM and gzip looked through):

* ``[`` a JSON list of queries (judgments ``json``);
* ``{`` a JSON object: with ``results`` or ``ranking`` a run, with a judgment
  key (``relevant``, ``query``...) judgments, with an id and a text field a
  corpus (all ``jsonl``);
* commas and neither 4 nor 6 fields: CSV, judgments when the header names
  questions, else a corpus;
* 6 whitespace-separated fields: a TREC run; anything else TREC qrels.
"""

from __future__ import annotations

from pathlib import Path

from assay.errors import UsageError

#: What a file may hold (``assay validate --kind``).
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
    fmt = sniff_line(_first_line(p))[1]
    if kind == "run":
        return "jsonl" if fmt == "jsonl" else "trec"
    return fmt


def detect_kind(path: str | Path) -> str:
    """What ``path`` holds: judgments (a folder: BEIR), a run, a corpus, answer cases,
    an ``assay.toml`` (``config``) or an assay result file (``result``)."""
    p = Path(path)
    if p.is_dir():
        return "judgments"
    if not p.is_file():
        raise UsageError(f"file not found: {p}")
    if p.suffix.lower() == ".toml":
        return "config"
    if any(is_result_file(p, kind) for kind in _RESULT_KINDS):
        return "result"
    return sniff_line(_first_line(p))[0]


#: Result kinds a result file may hold (``"kind"`` among its first keys).
_RESULT_KINDS = ("evaluation", "comparison", "answers", "gate", "verify", "agreement", "matrix")


def is_result_file(path: str | Path, kind: str) -> bool:
    """True when ``path`` holds an assay result of ``kind`` (``"kind": "evaluation"``...).

    A result file is one JSON object whose ``kind`` field, among the first keys
    of every result, names the result kind, beside its ``schema_version``; a
    JSONL run or an answer case never has both. Anything but a regular file
    (a FIFO would block) is not a result file.
    """
    import re

    p = Path(path)
    if not p.is_file():
        return False
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    mark = re.compile(rb'"kind"\s*:\s*"' + re.escape(kind.encode()) + rb'"')
    versioned = b'"schema_version"' in head
    return head.lstrip().startswith(b"{") and versioned and bool(mark.search(head))


def _head(p: Path) -> str:
    """The first bytes of ``p`` as text (BOM and gzip looked through)."""
    from assay.textio import read_bytes

    return read_bytes(p)[:_HEAD].decode("utf-8", errors="replace")


def _judgment_format_by_content(head: str) -> str | None:
    """Judgment formats told by content whatever the name: SRW JSON, graded CSV."""
    from assay.judgments import graded_csv, srw

    return srw.sniff(head) or ("graded-csv" if graded_csv.sniff(head) else None)


def _first_line(p: Path) -> str:
    """The first line of ``p`` that is neither blank nor a ``#`` comment (stripped)."""
    lines = (line.strip() for line in _head(p).split("\n"))
    return next((line for line in lines if line and not line.startswith("#")), "")


def sniff_line(first: str) -> tuple[str, str]:
    """(kind, format) told by the first line of a file (stripped; see the module rules)."""
    if first.startswith("["):
        return "judgments", "json"
    if first.startswith("{"):
        return _json_kind(first), "jsonl"
    if "," in first and len(first.split()) not in (4, 6):
        from assay.judgments.graded_csv import sniff as graded

        columns = {c.strip() for c in first.split(",")}
        judged = columns & _CSV_JUDGMENT_COLUMNS or graded(first)
        return ("judgments" if judged else "corpus"), "csv"
    if len(first.split()) == 6:
        return "run", "trec"
    return "judgments", "trec"


def _json_kind(first: str) -> str:
    import json

    from assay.textio import parse_json

    try:
        obj = parse_json(first)
    except json.JSONDecodeError:
        return "judgments"
    keys = set(obj) if isinstance(obj, dict) else set()
    if "results" in keys or "ranking" in keys:
        return "run"
    if keys & _ANSWER_KEYS:
        return "answers"
    if keys & _JUDGMENT_KEYS:
        return "judgments"
    if keys & _ID_KEYS and keys & _TEXT_KEYS:
        return "corpus"
    return "judgments"
