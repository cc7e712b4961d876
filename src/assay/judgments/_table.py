"""Fast reader of whitespace-separated text tables (TREC qrels, BEIR qrels TSV).

The fast path hands the bytes to the pandas C parser; it is taken only when the
file has no comment or blank lines, so that row ``i`` is physical line
``i + 1 (+ 1 with a header)``. Anything unusual goes to a line-by-line reader
that skips ``#`` comment lines and names every malformed line.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd

from assay.core.errors import ProblemLog


def read_table(
    data: bytes,
    text: str,
    columns: tuple[str, ...],
    log: ProblemLog,
    *,
    header: bool = False,
    comments: bool = True,
    layout: str = "",
) -> pd.DataFrame:
    """Split ``text`` (the decoded ``data``) into string ``columns`` plus ``line``.

    With ``header`` the first non-comment line is skipped. With ``comments``,
    lines starting with ``#`` are skipped (doc ids may still contain ``#``).
    ``layout`` describes the expected fields in error messages.
    """
    fast = _fast(data, text, columns, header=header)
    if fast is not None:
        return fast
    return _slow(text, columns, log, header=header, comments=comments, layout=layout)


def _physical_lines(text: str) -> int:
    """Lines up to the last non-blank one (trailing blank lines are not rows)."""
    body = text.rstrip()
    return body.count("\n") + 1 if body else 0


def _fast(data: bytes, text: str, columns: tuple[str, ...], *, header: bool) -> pd.DataFrame | None:
    if text.startswith("#") or "\n#" in text:
        return None
    n = _physical_lines(text) - (1 if header else 0)
    frame = _arrow(data, columns, header=header)
    if frame is None or frame.shape != (n, len(columns)):
        frame = _pandas(data, columns, header=header)
    if frame is None or frame.shape != (n, len(columns)):
        return None
    frame.columns = list(columns)
    if (frame[columns[-1]] == "").any():
        return None
    start = 2 if header else 1
    return frame.assign(line=np.arange(start, start + n, dtype=np.int64))


def _arrow(data: bytes, columns: tuple[str, ...], *, header: bool) -> pd.DataFrame | None:
    """pyarrow's CSV reader, when one space or one tab separates every field.

    Anything else (both separators, repeated blanks, carriage returns, vertical
    tabs or form feeds, blank lines) makes it give up, for pandas to split.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if b"\r" in data or b"\x0b" in data or b"\x0c" in data:
        return None
    tab, space = b"\t" in data, b" " in data
    if tab == space:
        return None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(
                column_names=list(columns), skip_rows=1 if header else 0, use_threads=False
            ),
            parse_options=pacsv.ParseOptions(
                delimiter="\t" if tab else " ",
                quote_char=False,
                escape_char=False,
                ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(columns, pa.string()),
                strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return table.to_pandas()


def _pandas(data: bytes, columns: tuple[str, ...], *, header: bool) -> pd.DataFrame | None:
    try:
        return pd.read_csv(
            io.BytesIO(data),
            sep=r"\s+",
            header=None,
            dtype=str,
            quoting=csv.QUOTE_NONE,
            na_filter=False,
            engine="c",
            skiprows=1 if header else 0,
        )
    except Exception:
        return None


def _slow(
    text: str,
    columns: tuple[str, ...],
    log: ProblemLog,
    *,
    header: bool,
    comments: bool,
    layout: str,
) -> pd.DataFrame:
    rows: list[list[str]] = []
    lines: list[int] = []
    skip_header = header
    all_lines = text.split("\n")
    last = max((i for i, raw in enumerate(all_lines, start=1) if raw.strip()), default=0)
    for number, raw in enumerate(all_lines, start=1):
        line = raw.strip()
        if not line and number < last:
            log.add(number, "blank line", hint="remove it: every line holds one judgment")
            continue
        if not line or (comments and line.startswith("#")):
            continue
        if skip_header:
            skip_header = False
            continue
        fields = line.split()
        if len(fields) != len(columns):
            log.add(
                number,
                f"expected {len(columns)} fields ({layout or ' '.join(columns)}), "
                f"found {len(fields)}",
                hint="separate fields with spaces or tabs; ids must not contain spaces",
            )
            continue
        rows.append(fields)
        lines.append(number)
    frame = pd.DataFrame(rows, columns=list(columns), dtype=str)
    return frame.assign(line=np.asarray(lines, dtype=np.int64))
