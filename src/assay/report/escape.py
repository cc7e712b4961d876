"""Escaping for Markdown outputs (CSV cells are neutralised by :mod:`assay.csvout`).

:func:`md_cell`: a ``|`` would end a Markdown table cell and a newline the row;
both are escaped (``\\|``, a space), and so is a backslash.
"""

from __future__ import annotations


def md_cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
