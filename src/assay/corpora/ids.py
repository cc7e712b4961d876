"""Corpus ids, read in one place: the ids judged or cited documents are checked against.

:func:`read_corpus_ids` serves ``evaluate``, ``validate`` and ``answers``
(``--corpus``) and the BEIR judgment reader alike.
"""

from __future__ import annotations

from pathlib import Path

from assay.core.errors import InputError, Problem, UsageError, collecting
from assay.corpora.load import load_corpus
from assay.io.formats import beir_corpus_file, detect_format, sniff_line
from assay.io.textio import read_bytes, read_text, split_lines


def read_corpus_ids(path: str | Path, *, id_field: str | None = None) -> frozenset[str]:
    """The document ids of a corpus file, a BEIR folder or a plain list of ids.

    A corpus file (CSV, TSV, JSONL, BEIR ``corpus.jsonl``) is read and validated
    by :func:`assay.corpora.load_corpus` (``id_field`` as there). A BEIR corpus
    is read fast (only ``_id``, with pyarrow) when that gives the same ids. A
    file whose name names no corpus format is a list of ids, one per line.
    Raises :class:`InputError` naming the file for a missing or bad file.
    """

    p = Path(path)
    if p.is_dir() and beir_corpus_file(p) is not None:
        p = beir_corpus_file(p)  # type: ignore[assignment]
    if not p.exists():
        raise InputError([Problem(str(p), None, "file not found", hint="check the corpus path")])
    try:
        fmt = detect_format(p, "corpus")
    except UsageError:
        if p.is_dir():
            raise
        return _listed_ids(p)
    if fmt == "beir" and id_field is None:
        fast = _beir_ids(p)
        if fast is not None:
            return fast
    return frozenset(load_corpus(p, id_field=id_field, format=fmt).ids)


def _listed_ids(p: Path) -> frozenset[str]:
    """Ids of a plain list, one per line (blank lines skipped); JSON lines are a corpus."""

    ids: set[str] = set()
    with collecting(p) as log:
        text = read_text(p, log)
        lines = [line.strip() for line in split_lines(text or "")]
        first = next((line for line in lines if line), "")
        if text is not None and sniff_line(first)[1] == "jsonl":
            return frozenset(load_corpus(p, format="jsonl").ids)
        ids.update(line for line in lines if line)
        if text is not None and not ids:
            log.add(None, "no document ids in the corpus file", hint="write one id per line")
    return frozenset(ids)


def _beir_ids(p: Path) -> frozenset[str] | None:
    """The ``_id`` values of a BEIR corpus read with pyarrow, without the texts.

    ``None`` when the file holds anything :func:`load_corpus` would report
    (blank lines, missing, empty, padded or repeated ids, ids that are not text),
    so that it is read, and reported, the slow way.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    data = read_bytes(p)
    if not data.strip() or b"\n\n" in data.replace(b"\r\n", b"\n") or data.startswith(b"\n"):
        return None
    try:
        table = pj.read_json(
            pa.BufferReader(data),
            parse_options=pj.ParseOptions(
                explicit_schema=pa.schema([("_id", pa.string())]),
                unexpected_field_behavior="ignore",
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    col = table.column("_id")
    if col.null_count or not len(col):
        return None
    if not pc.all(pc.equal(pc.utf8_trim_whitespace(col), col)).as_py():
        return None
    if pc.any(pc.equal(col, "")).as_py() or pc.count_distinct(col).as_py() != len(col):
        return None
    return frozenset(col.to_pylist())
