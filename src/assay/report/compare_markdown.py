"""Render a :class:`ComparisonResult` as Markdown for a pull-request comment.

The same tables as the terminal (see :mod:`assay.report.compare_terminal`), with
4 decimals: the aggregate, slices with a detectable change, the largest changes
and power.
"""

from __future__ import annotations

from assay.report.compare_common import adjusted_header, correction_label, settings_line
from assay.report.compare_terminal import (
    aggregate_table,
    changes_tables,
    overlap_table,
    pairs_table,
    power_table,
    slices_table,
)
from assay.report.escape import md_cell
from assay.report.policies import policy_lines
from assay.report.table import Column, Table, markdown_table
from assay.stats.models import ComparisonResult
from assay.stats.verdict import Verdict


def _cell(text: str) -> str:

    return md_cell(text)


def _markdown_headers(table: Table, names: dict[str, str]) -> Table:
    cols = [Column(names.get(c.header, c.header), c.align, c.wrap, c.key) for c in table.columns]
    return Table(cols, table.rows, table.title)


def _adjusted_words(result: ComparisonResult) -> str:
    if result.settings.adjustment == "none":
        return "not corrected for multiple tests"
    return f"{correction_label(result)}-adjusted"


def render_markdown(result: ComparisonResult) -> str:
    """Markdown: aggregate, flagged slices, largest changes, power, settings, warnings."""
    name = correction_label(result)
    adjusted = {adjusted_header(result): f"p ({name})"}
    aggregate = _markdown_headers(
        aggregate_table(result, 4), {"base": "baseline", "cand": "candidate", **adjusted}
    )
    lines = [
        f"### assay compare: vs `{_cell(result.baseline)}` on {_cell(result.judgments_name)} "
        f"(`{result.judgments_version}`)",
        "",
        markdown_table(Table(aggregate.columns, aggregate.rows)),
    ]
    if any(s.verdict is not Verdict.NO_DIFFERENCE for s in result.slices):
        flagged = slices_table(result, 4, flagged_only=True)
        lines.append(markdown_table(_markdown_headers(flagged, adjusted)))
    lines += [markdown_table(t) for t in changes_tables(result)]
    lines.append(markdown_table(power_table(result)))
    pairs = pairs_table(result)
    if pairs is not None:
        lines.append(markdown_table(_markdown_headers(pairs, {})))
    overlap = overlap_table(result)
    if overlap is not None:
        lines.append(markdown_table(overlap))
    lines += [
        f"<sub>p: paired test; p ({name}): {_adjusted_words(result)}, decides the verdict; "
        "d: effect size (mean Δ / sd of Δ); W/L/T: queries won/lost/tied by the candidate</sub>",
        "",
        f"<sub>{_cell(settings_line(result))}</sub>",
        "",
        *(f"- policy: {_cell(line)}" for line in policy_lines(result.policies)),
        "",
    ]
    lines += [f"> ⚠ {_cell(w)}" for w in result.warnings]
    return "\n".join(lines) + "\n"
