"""CSV written in one place, safe to open in a spreadsheet.

Every CSV output of assay goes through :func:`csv_text`. A text cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be run
as a formula by spreadsheet programs (CSV formula injection, OWASP); such a
cell gets a leading ``'``. Numbers stay numbers: non-text values, and text that
is a plain decimal number (``-0.25``, ``-1e-05``), are written as they are, so
numeric columns keep their sign and sort as numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: object) -> object:
    """``value`` safe to open in a spreadsheet: formula-looking text gets a leading ``'``."""
    if not isinstance(value, str) or not value.startswith(_FORMULA):
        return value
    if _NUMBER.fullmatch(value):
        return value
    return "'" + value


def csv_text(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """``header`` and ``rows`` as CSV text (``\\n`` line ends), every cell through :func:`csv_cell`.

    ``None`` cells are written empty.
    """
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in _chain(header, rows):
        writer.writerow(["" if cell is None else csv_cell(cell) for cell in row])
    return buf.getvalue()


def _chain(
    header: Sequence[object], rows: Iterable[Sequence[object]]
) -> Iterable[Sequence[object]]:
    yield header
    yield from rows
