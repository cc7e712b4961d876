"""Columnar parse of TREC run files with pyarrow: ids as codes, never Python strings.

:func:`parse_columns` reads a run (bytes, or a path that pyarrow reads block by
block) into query codes (int32, first-appearance order) with their
dictionary, the doc ids as pandas strings over the Arrow column and the scores; :func:`categorical`
turns codes into pandas categoricals without copies or re-validation
(repeated pairs are found by :mod:`assay.core.pairs`). Parse errors are pyarrow's
(``ArrowInvalid``); :mod:`assay.runs.io` turns them into named bad lines.
:func:`line_pieces` and :func:`parse_piece` read a file a piece of whole lines at a
time, each piece on every core (:mod:`assay.runs.blocks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from assay.core._threads import beside
from assay.core.pairs import arrow_column, arrow_strings, as_numpy, encode_grouped, hashes

_TREC_FIELDS = ("query_id", "Q0", "doc_id", "rank", "score", "tag")
#: Bytes per pyarrow CSV block: small enough that the blocks spread evenly over
#: the cores (64 MiB blocks left one core idle at the end of a 300 MB run).
_BLOCK_SIZE = 1 << 22


def parse_trec(data: bytes | str, skip_rows: int = 0) -> Any:
    """Parse run bytes, or the file at a path (``str``), into an Arrow table.

    ``skip_rows`` leading lines are not read (the marker line of ``assay run``).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    source = data if isinstance(data, str) else pa.py_buffer(data)
    return pacsv.read_csv(source, **csv_options(skip_rows))


def csv_options(skip_rows: int = 0, block_size: int = _BLOCK_SIZE) -> dict[str, Any]:
    """The pyarrow CSV options of a TREC run (keywords of ``read_csv`` and ``open_csv``)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    return {
        "read_options": pacsv.ReadOptions(
            column_names=list(_TREC_FIELDS),
            block_size=block_size,
            use_threads=True,
            skip_rows=skip_rows,
        ),
        "parse_options": pacsv.ParseOptions(
            delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False
        ),
        "convert_options": pacsv.ConvertOptions(
            # Q0 and the tag are not converted (the parser still checks every line has
            # all 6 fields); the tag of the first line names the run.
            include_columns=["query_id", "doc_id", "rank", "score"],
            column_types={
                "query_id": pa.string(),
                "doc_id": pa.string(),
                # converted only to check it is a number, then dropped: float32 accepts
                # exactly the strings float64 does, in half the memory
                "rank": pa.float32(),
                "score": pa.float64(),
            },
            strings_can_be_null=False,
            null_values=[],
            check_utf8=True,
        ),
    }


#: (query codes, query ids, doc ids per row (pandas strings), scores) of a parsed TREC run
Columns = tuple[np.ndarray, Any, Any, np.ndarray]


def parse_columns(data: bytes | str, skip_rows: int = 0) -> Columns:
    """Parse the run bytes; encode the query ids as codes in order of first appearance.

    The doc ids stay strings, one per row (a pandas array over the Arrow
    column): hashing ten million of them into a dictionary would be the
    slowest step of the read, and no check or measure needs their codes. Their
    :func:`assay.core.pairs.hashes`, which the checks and the metrics engine use,
    are computed on other threads while this one converts the other columns.
    """
    return table_columns([parse_trec(data, skip_rows)])


def table_columns(held: list[Any]) -> Columns:
    """:func:`parse_columns` of the parsed Arrow table in ``held`` (``query_id``, ``doc_id``,
    ``score``); the list is emptied, so the table is freed as its columns are converted."""
    table = held.pop()
    joining = beside(partial(_hashed_strings, table.column("doc_id")), table.num_rows)
    scores = as_numpy(table.column("score"), np.float64)
    qcodes, qids = encode_grouped(table.column("query_id"))
    del table  # the parsed chunks are freed as each column is converted
    return qcodes, qids, joining.result(), scores


def _hashed_strings(column: Any) -> Any:
    """:func:`~assay.core.pairs.arrow_strings` of ``column``, its
    :func:`assay.core.pairs.hashes` computed (and remembered for that column)."""
    docs = arrow_strings(column)
    hashes(arrow_column(docs))
    return docs


def categorical(codes: np.ndarray, dictionary: Any) -> Any:
    """A pandas Categorical over unique strings (codes in appearance order), built as is."""
    import pandas as pd

    categories = pd.Index(pd.arrays.ArrowStringArray(dictionary))
    try:  # the dictionary is unique by construction: skip pandas' uniqueness check
        dtype = pd.CategoricalDtype._from_fastpath(categories, ordered=False)
    except (AttributeError, TypeError):  # pragma: no cover - other pandas versions
        dtype = pd.CategoricalDtype(categories)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def parse_piece(piece: bytes, skip: int) -> Any:
    """``piece`` (whole lines) parsed by pyarrow's threaded reader, in four blocks of at
    least 1 MB; in one block when a line is longer than a block (pyarrow refuses a line
    that straddles two)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    data = pa.py_buffer(piece)
    try:
        return pacsv.read_csv(data, **csv_options(skip, max(len(piece) // 4, 1 << 20)))
    except pa.ArrowInvalid as exc:
        if "straddl" not in str(exc):
            raise
    return pacsv.read_csv(data, **csv_options(skip, len(piece) + 1))


def line_pieces(path: str | Path, size: int | Callable[[], int]) -> Iterator[bytes]:
    """The bytes of the file at ``path`` in pieces of about ``size`` bytes, each ending
    after a line's end (``\\n``; ``\\r`` in a file without one) but the last: joined, they
    are the file. A line longer than ``size`` makes a longer piece. ``size`` may be a
    function, asked before each read."""
    ask = size if callable(size) else lambda: size
    rest = b""
    with open(path, "rb") as fh:
        while data := fh.read(ask()):
            if rest:
                data, rest = rest + data, b""
            end = data.rfind(b"\n")
            if end < 0:  # a last \r waits: the \n of its \r\n may come next
                end = data.rfind(b"\r", 0, len(data) - 1)
            if end < 0:  # no line ends yet: read on
                rest = data
                continue
            rest = data[end + 1 :]
            yield data[: end + 1] if rest else data
    if rest:
        yield rest
