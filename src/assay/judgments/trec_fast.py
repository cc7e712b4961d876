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

from assay.core._threads import beside
from assay.core.pairs import arrow_column, arrow_strings, as_numpy, codes, hashes, string_buffers
from assay.core.repeats import repeated_ids

#: Bytes whose presence sends a file to the checked reader (tabs, carriage
#: returns, other white space). Repeated or edge blanks and blank lines are
#: caught after the split instead: they leave an empty field, or a line with
#: another number of fields, which the CSV reader refuses.
_UNUSUAL = (b"\r", b"\t", b"\x0b", b"\x0c")
#: The most digits of a grade the checked reader accepts.
_DIGITS = 18


def clean_qrels(data: bytes, columns: tuple[str, ...]) -> pd.DataFrame | None:
    """``query_id, doc_id, grade, line`` of clean qrels ``data``, else ``None``.

    ``columns`` names the fields of a line (3 or 4, with ``query_id``,
    ``doc_id`` and ``grade``).
    """

    body = memoryview(data)[:-1] if data.endswith(b"\n") else memoryview(data)  # no copy
    if not body or data.startswith((b"#", b" ")) or data.endswith((b" ", b" \n")):
        return None
    if any(mark in data for mark in _UNUSUAL):
        return None
    table = _read(body, columns)
    if table is None:
        return None
    queries = arrow_strings(table.column("query_id"))
    docs = arrow_strings(table.column("doc_id"))
    qcol, dcol = arrow_column(queries), arrow_column(docs)
    n = table.num_rows
    # two halves of the checks, one on each core (Arrow and numpy release the GIL)
    side = beside(lambda: (codes(qcol)[0], _fields_clean(table)), n)
    hashes(dcol)  # remembered for the repeat check below
    grades = _whole_grades(table.column("grade"))
    qcodes, clean = side.result()
    if not clean or grades is None or len(repeated_ids(qcodes, dcol)[0]):
        return None  # a repeated pair: the checked reader names both lines
    return pd.DataFrame(
        {
            "query_id": queries,
            "doc_id": docs,
            "grade": grades,
            "line": np.arange(1, n + 1, dtype=np.int64),
        },
        copy=False,
    )


def _read(body: bytes | memoryview, columns: tuple[str, ...]) -> Any:
    """Every field of ``body`` as strings; ``None`` when a line has another number of
    fields (or bytes that are not UTF-8)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        # on this thread: what Arrow's worker threads allocate stays with their heaps once
        # freed (47 MB more resident after 1.5 million judgments, in the same time)
        return pacsv.read_csv(
            pa.py_buffer(body),
            read_options=pacsv.ReadOptions(column_names=list(columns), use_threads=False),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(columns, pa.large_string()),
                strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _fields_clean(table: Any) -> bool:
    """No empty field (two blanks in a row, a blank at a line's edge) and no line
    that the checked reader would skip as a comment."""
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return False
    if any(pc.min(pc.binary_length(column)).as_py() == 0 for column in table.columns):
        return False
    return not pc.any(pc.starts_with(table.column("query_id"), "#")).as_py()


def _whole_grades(grades: Any) -> np.ndarray | None:
    """The grades as int64 when each is an optional ``-`` and 1 to 18 decimal digits;
    else ``None``.

    One-character grades (the usual 0-3) are read from their bytes. Otherwise
    Arrow's cast reads them: it refuses blanks, a ``+`` and any other character
    except the ``x`` of a hexadecimal number, so a grade it reads is whole
    unless it holds an ``x`` or is longer than 18 digits.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    longest = pc.max(pc.binary_length(grades)).as_py()
    if longest == 1:
        digits = [string_buffers(c)[1] for c in grades.chunks]
        values = np.concatenate(digits).astype(np.int64) - ord("0")
        return values if ((values >= 0) & (values <= 9)).all() else None
    if longest > _DIGITS:  # a sign and 18 digits, or too many digits
        digits = pc.utf8_ltrim(grades, "-")
        if pc.max(pc.binary_length(digits)).as_py() > _DIGITS:
            return None
    try:
        values = pc.cast(grades, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if any(pc.any(pc.match_substring(grades, x)).as_py() for x in "xX"):
        return None
    return as_numpy(values, np.int64)
