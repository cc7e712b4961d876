"""Read a corpus from CSV, TSV, JSONL or a BEIR ``corpus.jsonl`` (each optionally gzipped).

Rules, in order:

* **Format**: ``format`` when given (``csv``, ``tsv``, ``jsonl``, ``beir``);
  otherwise from the name with any ``.gz`` removed: ``corpus.jsonl`` (or a
  folder holding one) is BEIR, ``.csv`` is CSV, ``.tsv`` is TSV, ``.jsonl`` /
  ``.ndjson`` / ``.json`` is JSONL.
* **Id field**: ``id_field`` when given. BEIR: ``_id`` (when the first record has
  one; otherwise as JSONL). CSV/JSONL: the first of
  ``id``, ``idno``, ``doc_id``, ``_id`` present in the header (CSV) or the
  first record (JSONL).
* **Text fields**: ``text_fields`` when given (each must exist). BEIR:
  ``title`` and ``text``. CSV/JSONL: every other field holding text, in file
  order.

Every problem names the file, the 1-based physical line and the field, with a
hint; all are collected and raised together as :class:`InputError`. A UTF-8
byte-order mark and Windows line ends are accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.core.errors import InputError, Problem, ProblemLog, UsageError, collecting
from assay.corpora.models import Corpus
from assay.io.formats import CORPUS_FORMATS, beir_corpus_file
from assay.io.formats import detect_format as detect
from assay.io.irds import doc_rows, is_irds
from assay.io.textio import csv_table, json_lines, read_text

FORMATS = CORPUS_FORMATS
#: Id fields tried, in order, when none is given for CSV or JSONL.
ID_CANDIDATES = ("id", "idno", "doc_id", "_id")
BEIR_ID = "_id"
BEIR_TEXT_FIELDS = ("title", "text")


def detect_format(path: str | Path) -> str:
    """The corpus format implied by a file or folder name (see the module rules)."""

    return detect(path, "corpus")


def load_corpus(
    path: str | Path,
    *,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
    format: str | None = None,
) -> Corpus:
    """Read and validate a corpus file; see the module docstring for the rules.

    Raises :class:`InputError` (file, line, field, hint) for duplicate or empty
    ids, a missing id field, an unknown text field, malformed JSON or CSV and
    bytes that are not UTF-8; :class:`UsageError` for a bad argument.
    ``irds:NAME`` reads the documents of the ir_datasets dataset NAME from the
    local cache (:mod:`assay.io.irds`), checked as a JSONL corpus.
    """

    if is_irds(path):
        return _load_irds(str(path), id_field, text_fields)
    p = Path(path)
    if not p.exists():
        raise InputError([Problem(str(p), None, "file not found", hint="check the corpus path")])
    fmt = (format or detect_format(p)).lower()
    if fmt not in FORMATS:
        raise UsageError(f"unknown corpus format {fmt!r}; use one of {', '.join(FORMATS)}")
    if p.is_dir():
        found = beir_corpus_file(p)
        if found is None:
            raise UsageError(f"{p} is a folder without corpus.jsonl")
        p = found
    fields = None if text_fields is None else list(text_fields)
    corpus = Corpus([], [])
    with collecting(p) as log:
        text = _read_text(p, log)
        if text is None:
            log.raise_if_any()
            return corpus
        if fmt in ("csv", "tsv"):
            rows = _parse_csv(text, log, delimiter="," if fmt == "csv" else "\t")
        else:
            rows = _parse_jsonl(text, log)
        if fmt == "beir":
            if id_field is None and (not rows or BEIR_ID in rows[0][1]):
                id_field = BEIR_ID  # else, as in JSONL, the first of ID_CANDIDATES
            if fields is None:
                fields = list(BEIR_TEXT_FIELDS)
                present = {k for _, r in rows for k in r}
                fields = [f for f in fields if f in present] or fields
        corpus = _build(p, fmt, rows, id_field, fields, log)
    return corpus


def _load_irds(path: str, id_field: str | None, text_fields: Sequence[str] | None) -> Corpus:

    rows = doc_rows(path)
    fields = None if text_fields is None else list(text_fields)
    with collecting(path) as log:
        corpus = _build(Path(path), "jsonl", rows, id_field or "doc_id", fields, log)
    return corpus


def _read_text(p: Path, log: ProblemLog) -> str | None:

    return read_text(p, log)


# ---------------------------------------------------------------------- parse
Row = tuple[int, dict[str, Any]]


def _parse_csv(text: str, log: ProblemLog, delimiter: str) -> list[Row]:

    header, rows = csv_table(text, log, delimiter=delimiter)
    if header is None:
        log.add(None, "the file is empty", hint="add a header row and one row per document")
        return []
    return [(line, dict(zip(header[1], cells, strict=True))) for line, cells in rows]


def _parse_jsonl(text: str, log: ProblemLog) -> list[Row]:

    return list(json_lines(text, log, what="record"))


# ---------------------------------------------------------------------- build
def _build(
    p: Path,
    fmt: str,
    rows: list[Row],
    id_field: str | None,
    text_fields: list[str] | None,
    log: ProblemLog,
) -> Corpus:
    keys = list(rows[0][1]) if rows else []
    if id_field is None:
        id_field = next((k for k in ID_CANDIDATES if k in keys), None)
        if id_field is None and rows:
            log.add(
                rows[0][0],
                f"no id field: none of {', '.join(ID_CANDIDATES)} is present",
                hint="name the id field with --id-field (id_field in assay.toml)",
            )
            return Corpus([], [])
    elif rows and fmt in ("csv", "tsv") and id_field not in keys:
        log.add(
            1,
            f"no column {id_field!r}; columns: {', '.join(keys)}",
            field=id_field,
            hint="fix --id-field or the header",
        )
        return Corpus([], [])
    id_field = id_field or "id"
    present = list(dict.fromkeys(k for _, r in rows for k in r))
    if text_fields is None:
        text_fields = [
            k for k in present if k != id_field and any(isinstance(r.get(k), str) for _, r in rows)
        ]
    else:
        for f in text_fields:
            if f not in present and rows:
                log.add(
                    1 if fmt in ("csv", "tsv") else None,
                    f"unknown text field {f!r}; fields: {', '.join(present)}",
                    field=f,
                    hint="fix --text-field (text_fields in assay.toml)",
                )
    ids: list[str] = []
    records: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for line, record in rows:
        doc = _doc_id(record, id_field, line, log)
        if doc is None:
            continue
        if doc in first_line:
            log.add(
                line,
                f"duplicate id {doc!r} (first on line {first_line[doc]})",
                field=id_field,
                hint="give every document its own id",
            )
            continue
        first_line[doc] = line
        for f in text_fields:
            value = record.get(f)
            if value is not None and not isinstance(value, str):
                log.add(
                    line,
                    f"expected text, found {type(value).__name__}",
                    field=f,
                    hint="store the field as a JSON string or drop it from text fields",
                )
        ids.append(doc)
        records.append(record)
    return Corpus(
        ids,
        records,
        id_field=id_field,
        text_fields=text_fields,
        path=str(p),
        format=fmt,
        name=p.name.split(".")[0] or p.name,
    )


def _doc_id(record: dict[str, Any], id_field: str, line: int, log: ProblemLog) -> str | None:
    if id_field not in record:
        log.add(line, "missing id", field=id_field, hint=f"give every record a {id_field!r}")
        return None
    value = record[id_field]
    if isinstance(value, bool) or not isinstance(value, str | int):
        log.add(
            line,
            f"id must be text or an integer, found {type(value).__name__}",
            field=id_field,
            hint="write the id as a string",
        )
        return None
    doc = str(value).strip()
    if not doc:
        log.add(line, "empty id", field=id_field, hint="give every document a non-empty id")
        return None
    return doc
