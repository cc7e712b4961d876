"""The fast path of TREC qrels: a clean file goes from bytes to the checked frame in Arrow.

Most qrels files are clean: one space between fields, no comment, blank or
carriage-return line, whole-number grades and each (query, doc) pair once. For
those, :func:`clean_qrels` builds the same frame as the checked reader
(:func:`assay.judgments.trec.parse_trec_qrels`) with pyarrow alone, about as
fast as pyarrow reads the file. Anything unusual gives ``None``, and the
checked reader, which names every problem, takes over; so this path never
decides what is wrong with a file, only that nothing is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: Bytes whose presence sends a file to the checked reader (comments, blank
#: lines, tabs, repeated or edge blanks, carriage returns, other white space).
_UNUSUAL = (b"\n#", b"\r", b"\t", b"  ", b"\n ", b" \n", b"\n\n", b"\x0b", b"\x0c")
#: A whole-number grade as the checked reader accepts it, without a plus sign.
_GRADE = r"^-?[0-9]{1,18}$"


def clean_qrels(data: bytes, columns: tuple[str, ...]) -> pd.DataFrame | None:
    """``query_id, doc_id, grade, line`` of clean qrels ``data``, else ``None``.

    ``columns`` names the fields of a line (3 or 4, with ``query_id``,
    ``doc_id`` and ``grade``).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    body = data[:-1] if data.endswith(b"\n") else data
    if not body or body.startswith((b"#", b" ")) or body.endswith(b" "):
        return None
    if any(mark in body for mark in _UNUSUAL):
        return None
    table = _read(body, columns)
    if table is None:
        return None
    grades = table.column("grade")
    if not pc.all(pc.match_substring_regex(grades, _GRADE)).as_py():
        return None
    queries, docs = table.column("query_id"), table.column("doc_id")
    if _has_repeats(queries, docs):
        return None
    n = table.num_rows
    frame = pa.table(
        {"query_id": queries, "doc_id": docs, "grade": pc.cast(grades, pa.int64())}
    ).to_pandas()
    return frame.assign(line=np.arange(1, n + 1, dtype=np.int64))


def _read(body: bytes, columns: tuple[str, ...]) -> Any:
    """The string columns of ``body``; ``None`` when a line has another number of fields."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    wanted = ["query_id", "doc_id", "grade"]
    try:
        return pacsv.read_csv(
            pa.py_buffer(body),
            read_options=pacsv.ReadOptions(column_names=list(columns), use_threads=True),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=wanted,
                column_types=dict.fromkeys(wanted, pa.string()),
                strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _has_repeats(queries: Any, docs: Any) -> bool:
    """True when a (query, doc) pair is on two lines (the checked reader names them).

    The doc ids' hashes rule a repeat out in one pass; only when two agree are
    the ids encoded to decide exactly.
    """
    from assay.pairs import codes, hashes, may_repeat

    qcodes, _ = codes(queries)
    if not may_repeat(qcodes, hashes(docs), None):
        return False
    dcodes, ndocs = codes(docs)
    return may_repeat(qcodes, dcodes, ndocs)
