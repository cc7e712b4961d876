"""Escaping for Markdown and LaTeX outputs (CSV cells are neutralised by :mod:`assay.io.csvout`).

:func:`md_cell`: a ``|`` would end a Markdown table cell and a newline the row;
both are escaped (``\\|``, a space), and so is a backslash.
:func:`latex_text`: the ten characters LaTeX reads as commands are written out.
"""

from __future__ import annotations


def md_cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


#: LaTeX's special characters and what stands for each in text mode.
_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
}


def latex_text(text: object) -> str:
    """``text`` safe in LaTeX text mode: each special character written as itself;
    newlines become spaces (a table cell is one line)."""
    s = str(text).replace("\r", " ").replace("\n", " ")
    return "".join(_LATEX.get(ch, ch) for ch in s)
