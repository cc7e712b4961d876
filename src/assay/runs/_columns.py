"""Columnar parse of TREC run files with pyarrow: ids as codes, never Python strings.

:func:`parse_columns` reads a run (bytes, or a path that pyarrow reads block by
block) into query and doc codes (int32, first-appearance order) with their
dictionaries and the scores; :func:`categorical` turns codes into pandas
categoricals without copies or re-validation (repeated pairs are found by
:mod:`assay.pairs`). Parse errors are pyarrow's
(``ArrowInvalid``); :mod:`assay.runs.io` turns them into named bad lines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.pairs import as_numpy, encode, encode_grouped

_TREC_FIELDS = ("query_id", "Q0", "doc_id", "rank", "score", "tag")
#: Bytes per pyarrow CSV block: small enough that the blocks spread evenly over
#: the cores (64 MiB blocks left one core idle at the end of a 300 MB run).
_BLOCK_SIZE = 1 << 22


def parse_trec(data: bytes | str) -> Any:
    """Parse run bytes, or the file at a path (``str``), into an Arrow table."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    return pacsv.read_csv(
        data if isinstance(data, str) else pa.py_buffer(data),
        read_options=pacsv.ReadOptions(
            column_names=list(_TREC_FIELDS), block_size=_BLOCK_SIZE, use_threads=True
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False
        ),
        convert_options=pacsv.ConvertOptions(
            # Q0 and the tag are not converted (the parser still checks every line has
            # all 6 fields); the tag of the first line names the run.
            include_columns=["query_id", "doc_id", "rank", "score"],
            column_types={
                "query_id": pa.string(),
                "doc_id": pa.string(),
                "rank": pa.float64(),
                "score": pa.float64(),
            },
            strings_can_be_null=False,
            null_values=[],
            check_utf8=True,
        ),
    )


#: (query codes, query ids, doc codes, doc ids, scores) of a parsed TREC run
Columns = tuple[np.ndarray, Any, np.ndarray, Any, np.ndarray]


def parse_columns(data: bytes | str) -> Columns:
    """Parse the run bytes; encode the ids as codes in order of first appearance."""
    from concurrent.futures import ThreadPoolExecutor

    table = parse_trec(data)
    # Hashing the doc ids is the longest step: it runs on a second thread (pyarrow
    # releases the GIL) while this one converts the scores and query ids.
    docs_col = table.column("doc_id")
    with ThreadPoolExecutor(2) as pool:
        if len(docs_col) >= _SPLIT_AT:  # hash each half on its own thread, then merge
            half = len(docs_col) // 2
            jobs = [
                pool.submit(encode, docs_col.slice(0, half)),
                pool.submit(encode, docs_col.slice(half)),
            ]
        else:
            jobs = [pool.submit(encode, docs_col)]
        scores = as_numpy(table.column("score"), np.float64)
        qcodes, qids = encode_grouped(table.column("query_id"))
        parts = [job.result() for job in jobs]
    dcodes, docs = parts[0] if len(parts) == 1 else _merge_codes(parts[0], parts[1])
    return qcodes, qids, dcodes, docs, scores


#: Runs with at least this many rows hash their doc ids on two threads.
_SPLIT_AT = 1_000_000


def _merge_codes(
    first: tuple[np.ndarray, Any], second: tuple[np.ndarray, Any]
) -> tuple[np.ndarray, Any]:
    """Join two (codes, dictionary) encodings of consecutive halves of one column.

    The merged dictionary is the first one followed by the second one's new
    values, so codes stay in order of first appearance over the whole column.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    codes_a, dict_a = first
    codes_b, dict_b = second
    where = pc.index_in(dict_b, value_set=dict_a)
    mapping = as_numpy(where.fill_null(-1), np.int64)
    new = mapping < 0
    mapping[new] = len(dict_a) + np.arange(int(new.sum()), dtype=np.int64)
    dictionary = pa.concat_arrays([dict_a, dict_b.filter(pa.array(new))])
    codes = np.concatenate([codes_a, mapping[codes_b].astype(np.int32)])
    return codes, dictionary


def categorical(codes: np.ndarray, dictionary: Any) -> Any:
    """A pandas Categorical over unique strings (codes in appearance order), built as is."""
    import pandas as pd

    categories = pd.Index(pd.arrays.ArrowStringArray(dictionary))
    try:  # the dictionary is unique by construction: skip pandas' uniqueness check
        dtype = pd.CategoricalDtype._from_fastpath(categories, ordered=False)
    except (AttributeError, TypeError):  # pragma: no cover - other pandas versions
        dtype = pd.CategoricalDtype(categories)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
