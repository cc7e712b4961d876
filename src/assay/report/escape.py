"""Escaping for text outputs: Markdown table cells and spreadsheet-safe CSV cells.

* :func:`md_cell`: a ``|`` would end a Markdown table cell and a newline the
  row; both are escaped (``\\|``, a space).
* :func:`csv_cell`: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
  carriage return is run as a formula by spreadsheet programs (CSV formula
  injection); such text gets a leading ``'``. Numbers, and text that reads as
  a number (``-0.25``), are left as they are.
"""

from __future__ import annotations

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def md_cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def csv_cell(value: object) -> object:
    """``value`` safe to open in a spreadsheet: formula-looking text gets a leading ``'``."""
    if not isinstance(value, str) or not value.startswith(_FORMULA):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value
