"""LaTeX tables (``-f latex``) of evaluation and comparison results, for papers.

A ``booktabs`` table (``\\toprule``, ``\\midrule``, ``\\bottomrule``; the
preamble needs ``\\usepackage{booktabs}``), one column per measure, 4 decimals
(a count's whole). In a comparison each system gets a letter (a, b, c...) in
the first column; a value carries as superscripts the letters of the systems
it is significantly better than, by the result's own verdicts (the test and
correction it was computed with, both named in the caption), and the best
(highest) value of each measure is bold, the convention of ranx's reports. An
evaluation's table has the all-queries row and one row per group. Names are
escaped (:func:`assay.report.escape.latex_text`).
"""

from __future__ import annotations

from string import ascii_lowercase
from typing import TYPE_CHECKING

from assay.report.compare_common import correction_label, num
from assay.report.escape import latex_text
from assay.report.evaluation import group_rows
from assay.stats.verdict import Verdict

if TYPE_CHECKING:  # pragma: no cover
    from assay.results.models import EvaluationResult
    from assay.stats.models import ComparisonResult


def _letter(i: int) -> str:
    """a..z, then aa, ab... (more than 26 systems)."""
    return ascii_lowercase[i] if i < 26 else _letter(i // 26 - 1) + ascii_lowercase[i % 26]


def _best(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if len(present) > 1 else None


def _table(header: list[str], rows: list[list[str]], caption: str, label: str) -> str:
    """The table environment around ``rows`` (cells already LaTeX)."""
    spec = "ll" + "r" * (len(header) - 2)
    lines = [
        "% \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        f"\\caption{{{caption}}}",
        f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
        *(" & ".join(row) + " \\\\" for row in rows),
        "\\bottomrule",
        "\\end{tabular}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _cell(value: float | None, metric: str, best: float | None, marks: list[str]) -> str:
    text = num(value, 4, metric)
    if value is not None and best is not None and num(best, 4, metric) == text:
        text = f"\\textbf{{{text}}}"
    if marks:
        text += f"$^{{{''.join(marks)}}}$"
    return text


def _system_means(result: ComparisonResult) -> dict[str, dict[str, float]]:
    """Each system's mean (a count's total) per metric, from the result's comparisons."""
    means: dict[str, dict[str, float]] = {}
    for c in result.comparisons:
        base = getattr(c, "baseline", None) or result.baseline
        means.setdefault(base, {})[c.metric] = c.baseline_mean
        means.setdefault(c.candidate, {})[c.metric] = c.candidate_mean
    return means


def _wins(result: ComparisonResult, letters: dict[str, str]) -> dict[tuple[str, str], list[str]]:
    """(system, metric) -> letters of the systems it is significantly better than."""
    wins: dict[tuple[str, str], list[str]] = {}
    for c in result.comparisons:
        base = getattr(c, "baseline", None) or result.baseline
        if c.verdict is Verdict.BETTER:
            wins.setdefault((c.candidate, c.metric), []).append(letters[base])
        elif c.verdict is Verdict.WORSE:
            wins.setdefault((base, c.metric), []).append(letters[c.candidate])
    return {key: sorted(set(v), key=lambda x: (len(x), x)) for key, v in wins.items()}


def render_latex_comparison(result: ComparisonResult) -> str:
    """The comparison as a booktabs table: letters, means, bold best, superscript wins."""

    systems = [s.name for s in result.systems]
    letters = {name: _letter(i) for i, name in enumerate(systems)}
    means = _system_means(result)
    wins = _wins(result, letters)
    header = ["\\#", "System", *(latex_text(m) for m in result.metrics)]
    rows = []
    best = {m: _best([means.get(s, {}).get(m) for s in systems]) for m in result.metrics}
    for name in systems:
        cells = [
            _cell(means.get(name, {}).get(m), m, best[m], wins.get((name, m), []))
            for m in result.metrics
        ]
        rows.append([letters[name], latex_text(name), *cells])
    s = result.settings
    correction = (
        "no multiple-testing correction"
        if s.adjustment == "none"
        else f"{correction_label(result)} correction over {len(result.comparisons)} comparisons"
    )
    caption = (
        f"Mean per system on {latex_text(result.judgments_name)} "
        f"({result.n_queries} paired queries); the best value of each measure is bold. "
        f"A superscript names each system the value is significantly better than: paired "
        f"{latex_text(s.test)} test, {correction}, $\\alpha = {s.alpha:g}$."
    )
    return _table(header, rows, caption, "tab:assay-comparison")


def render_latex_evaluation(result: EvaluationResult) -> str:
    """The evaluation as a booktabs table: all queries, then one row per group."""

    grouped = group_rows(result)
    best = {m: _best([row.get(m) for *_, row in grouped]) for m in result.metrics}
    header = ["Queries", "n", *(latex_text(m) for m in result.metrics)]
    rows = []
    for field_name, value, row in grouped:
        label = "all" if not field_name else f"{field_name}={value}"
        cells = [_cell(row.get(m), m, best[m], []) for m in result.metrics]
        rows.append([latex_text(label), str(row["n"]), *cells])
    caption = (
        f"{latex_text(result.run.name)} on {latex_text(result.judgments.name)} "
        f"({result.judgments.queries} queries); the best value of each measure is bold."
    )
    return _table(header, rows, caption, "tab:assay-evaluation")
