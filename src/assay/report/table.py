"""The one table renderer of every report: terminal, plain text and Markdown.

A report describes a table once, as a :class:`Table` of plain cells, and this
module decides how it looks where it goes:

- on a terminal (``console.is_terminal``): a rich table sized to the terminal.
  Numbers, ids and metric names are never cut: free-text columns (``wrap=True``)
  wrap at word boundaries in the room left, or move below the table when there
  is not enough room; when the other columns alone are wider than the terminal,
  they are split into several tables that repeat the key columns.
- anywhere else (a pipe, a CI log, a file, ``--format plain``): plain text
  aligned at full width, never truncated, with no colour or control codes.
- :func:`markdown_table`: a GitHub-flavoured Markdown table of the same cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from assay.report.escape import md_cell

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

#: Columns between two cells.
GAP = 2
#: Narrowest a wrapped text column is allowed to get before it moves below the table.
MIN_TEXT_WIDTH = 24
#: Narrowest a long key column (a system name) gets before the table is wider than the terminal.
MIN_KEY_WIDTH = 12


class Styled(NamedTuple):
    """A cell with a rich style on a terminal (plain text and Markdown ignore the style)."""

    text: str
    style: str


Cell = str | Styled


@dataclass(frozen=True)
class Column:
    """A column: its header, alignment, and whether it is free text or a key.

    ``wrap``: free text (a query, a question, a detail) that may wrap at word
    boundaries or move below the table. ``key``: identifies a row (a group, a
    query id, a system) and is repeated when wide tables are split.
    """

    header: str
    align: Literal["left", "right"] = "left"
    wrap: bool = False
    key: bool = False


@dataclass
class Table:
    """A titled table of plain cells, rendered by :func:`print_table` or :func:`markdown_table`."""

    columns: Sequence[Column]
    rows: list[Sequence[Cell]] = field(default_factory=list)
    title: str | None = None
    caption: str | None = None

    def add_row(self, *cells: Cell) -> None:
        """Append a row (one cell per column)."""
        if len(cells) != len(self.columns):
            raise ValueError(f"row has {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(cells)


def text_of(cell: Cell) -> str:
    """The text of a cell, on one line."""
    text = cell.text if isinstance(cell, Styled) else str(cell)
    return " ".join(text.split()) if ("\n" in text or "\t" in text) else text


def _width(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def natural_widths(table: Table) -> list[int]:
    """Width of each column when nothing is wrapped: its widest cell or header."""
    widths = [_width(c.header) for c in table.columns]
    for row in table.rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(text_of(cell)))
    return widths


def plain_lines(table: Table) -> list[str]:
    """The table as plain aligned lines, full width, nothing cut (no title or caption)."""
    widths = natural_widths(table)

    def line(cells: Sequence[str]) -> str:
        parts = []
        for col, width, text in zip(table.columns, widths, cells, strict=True):
            pad = " " * (width - _width(text))
            parts.append(pad + text if col.align == "right" else text + pad)
        return (" " * GAP).join(parts).rstrip()

    out = [line([c.header for c in table.columns])]
    out += [line([text_of(c) for c in row]) for row in table.rows]
    return out


def plain_text(table: Table) -> str:
    """Title, aligned lines and caption as plain text ending in a newline."""
    lines = [table.title] if table.title else []
    lines += plain_lines(table)
    if table.caption:
        lines.append(table.caption)
    return "\n".join(lines) + "\n"


def markdown_rows(
    header: Sequence[object], rows: Iterable[Sequence[object]], *, right: Iterable[int] = ()
) -> list[str]:
    """The lines of a GitHub Markdown table: header, alignment, one line per row.

    Every cell goes through :func:`assay.report.escape.md_cell` (``|``, backslashes
    and newlines escaped); columns whose index is in ``right`` are right-aligned.
    """

    right = set(right)

    def line(cells: Sequence[object], blank: str = "") -> str:
        return "| " + " | ".join(md_cell(c) or blank for c in cells) + " |"

    align = "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"
    return [line(header, " "), align, *(line(row) for row in rows)]


def markdown_table(table: Table, *, title_prefix: str = "**") -> str:
    """The table in GitHub Markdown (cells escaped), with its title in bold and caption."""

    lines: list[str] = []
    if table.title:
        lines += [f"{title_prefix}{md_cell(table.title)}{title_prefix[::-1]}", ""]
    right = [i for i, c in enumerate(table.columns) if c.align == "right"]
    header = [c.header for c in table.columns]
    lines += markdown_rows(header, ([text_of(c) for c in row] for row in table.rows), right=right)
    if table.caption:
        lines += ["", f"<sub>{md_cell(table.caption)}</sub>"]
    return "\n".join(lines) + "\n"


def print_line(console: Console, text: str, *, markup: bool = False) -> None:
    """Print one line of a report, never highlighted: wrapped at words on a terminal,
    whole (one line, however long) anywhere else."""
    console.print(text, markup=markup, highlight=False, soft_wrap=not console.is_terminal)


def print_table(table: Table, console: Console) -> None:
    """Print ``table`` to ``console``: sized to a terminal, plain full width elsewhere."""
    if not console.is_terminal:
        console.out(plain_text(table), end="", highlight=False)
        return
    _print_terminal(table, console)


def _print_terminal(table: Table, console: Console) -> None:
    widths = natural_widths(table)
    width = console.width
    text_idx = [i for i, c in enumerate(table.columns) if c.wrap]
    fixed_idx = [i for i, c in enumerate(table.columns) if not c.wrap]
    fixed = _span(widths, fixed_idx)
    below: list[int] = []
    if text_idx and fixed + (GAP + MIN_TEXT_WIDTH) * len(text_idx) > width:
        below = text_idx  # no room: the text goes under the table, one row at a time
    inline = [i for i in range(len(table.columns)) if i not in below]
    folded = _fit_keys(table, widths, inline, width)
    chunks = _split_columns(table, widths, inline, width)
    for n, chunk in enumerate(chunks):
        title = table.title if n == 0 else None
        caption = table.caption if n == len(chunks) - 1 and not below else None
        console.print(_rich_table(table, widths, chunk, title, caption, folded))
    if below:
        _print_below(table, console, below)


def _span(widths: list[int], idx: Sequence[int]) -> int:
    return sum(widths[i] for i in idx) + GAP * max(len(idx) - 1, 0)


def _fit_keys(table: Table, widths: list[int], inline: list[int], width: int) -> set[int]:
    """Narrow the widest key columns (a long system name) when the table does not fit:
    until the keys and the widest other column fit ``width`` and the keys take at most
    half of it; those keys then fold. Changes ``widths``."""
    cols = table.columns
    keys = [i for i in inline if cols[i].key]
    others = [widths[i] for i in inline if not cols[i].key and not cols[i].wrap]
    if not keys or _span(widths, [i for i in inline if not cols[i].wrap]) <= width:
        return set()
    keys_span = _span(widths, keys)
    need = max(keys_span + (GAP + max(others) if others else 0) - width, keys_span - width // 2)
    folded: set[int] = set()
    while need > 0:
        widest = max(keys, key=lambda i: widths[i], default=None)
        if widest is None or widths[widest] <= MIN_KEY_WIDTH:
            break
        cut = min(need, widths[widest] - MIN_KEY_WIDTH)
        widths[widest] -= cut
        need -= cut
        folded.add(widest)
    return folded


def _split_columns(
    table: Table, widths: list[int], inline: list[int], width: int
) -> list[list[int]]:
    """Groups of column indexes, each fitting ``width``, every group with the key columns."""
    cols = table.columns
    if _span(widths, [i for i in inline if not cols[i].wrap]) <= width:
        return [inline]
    keys = [i for i in inline if cols[i].key]
    rest = [i for i in inline if not cols[i].key]
    chunks: list[list[int]] = []
    current: list[int] = []
    for i in rest:
        if current and _span(widths, sorted(keys + current + [i])) > width:
            chunks.append(sorted(keys + current))
            current = []
        current.append(i)
    if current:
        chunks.append(sorted(keys + current))
    return chunks or [inline]


def _rich_table(
    table: Table,
    widths: list[int],
    idx: list[int],
    title: str | None,
    caption: str | None,
    folded: set[int],
) -> Any:
    from rich.table import Table as RichTable
    from rich.text import Text

    rt = RichTable(
        title=title,
        caption=caption,
        title_justify="left",
        caption_justify="left",
        box=None,
        pad_edge=False,
        show_edge=False,
        header_style="bold",
        padding=(0, GAP // 2),
        title_style="bold",
        caption_style="dim",
    )
    for i in idx:
        col = table.columns[i]
        if col.wrap:
            rt.add_column(col.header, justify=col.align, overflow="fold", ratio=1)
        elif i in folded:
            rt.add_column(col.header, justify=col.align, overflow="fold", width=widths[i])
        else:
            rt.add_column(col.header, justify=col.align, no_wrap=True, min_width=widths[i])
    for row in table.rows:
        cells = []
        for i in idx:
            cell = row[i]
            style = cell.style if isinstance(cell, Styled) else ""
            cells.append(Text(text_of(cell), style=style))
        rt.add_row(*cells)
    return rt


def _print_below(table: Table, console: Console, below: list[int]) -> None:
    """Free-text cells under the table: ``key: text``, wrapped by the terminal at words."""
    from rich.padding import Padding
    from rich.text import Text

    keys = [i for i, c in enumerate(table.columns) if c.key and not c.wrap]
    for i in below:
        header = table.columns[i].header
        console.print(Text(f"{header}:" if header else "", style="bold"))
        for row in table.rows:
            label = " ".join(text_of(row[k]) for k in keys)
            text = text_of(row[i])
            if text:
                line = f"{label}: {text}" if label else text
                console.print(Padding(Text(line), (0, 0, 0, 2)))
