"""Terminal (rich) rendering of an :class:`~assay.answers.result.AnswersResult`.

Reads the result only: every number and label shown comes from the result.
"""

from __future__ import annotations

from typing import Any

from assay.answers.result import LAYERS, LOWER_IS_BETTER, NO_FAILURE, SCORES, AnswersResult
from assay.core.words import count
from assay.report.answers_ledger import LEDGER_HEADER, group_columns, ledger_rows
from assay.report.table import Column, Table, print_line, print_table


def fmt(value: float | None) -> str:
    """A score with two decimals; an en dash when undefined."""
    return "–" if value is None else f"{value:.2f}"


def header_line(result: AnswersResult) -> str:
    """``Grounded answers: SYSTEM on NAME (N cases, VERSION, corpus ...)``."""
    info = result.cases
    corpus = f", corpus {info.corpus} ({info.corpus_ids} ids)" if info.corpus else ""
    system = f"{result.system_name} on " if result.system_name else ""
    cases = count(info.cases, "case")
    kind = "Grounded answers" if result.source == "cases" else f"Answers ({result.source})"
    return f"{kind}: {system}{info.name} ({cases}, {info.version}{corpus})"


def answers_tables(result: AnswersResult) -> list[Table]:
    """The tables: scores, failures by layer, failing cases, one per ``--by`` field."""
    scores = Table(
        [Column("score", key=True), Column("value", "right"), Column("count", "right")],
        title="Scores",
    )
    for name, score in result.scores.items():
        label = SCORES.get(name, (name, ""))[0]
        arrow = " (lower is better)" if name in LOWER_IS_BETTER else ""
        scores.add_row(
            f"{label}{arrow}", fmt(score.value), f"{score.numerator}/{score.denominator}"
        )
    out = [scores]
    if result.ledger is not None:
        ledger = Table(
            [Column(LEDGER_HEADER[0], key=True), Column(LEDGER_HEADER[1], "right"),
             Column(LEDGER_HEADER[2], "right"), Column(LEDGER_HEADER[3], wrap=True)],
            title=f"Ledger ({count(result.ledger.cases_read, 'case')} read)",
        )  # fmt: skip
        for row in ledger_rows(result):
            ledger.add_row(*row)
        out.append(ledger)
    if result.source == "cases":
        out += _layer_tables(result)
    out += _group_tables(result)
    return out


def _layer_tables(result: AnswersResult) -> list[Table]:
    """Structured cases: failures by layer and the failing cases."""
    out = []
    layers = Table(
        [Column("layer", key=True), Column("cases", "right"), Column("where to act", wrap=True)],
        title="First failing layer",
    )
    for layer, (label, action) in LAYERS.items():
        layers.add_row(label, str(result.failures.get(layer, 0)), action)
    layers.add_row("no failure", str(result.failures.get(NO_FAILURE, 0)), "")
    out.append(layers)

    failing = [r for r in result.per_case if r["first_failure"] != NO_FAILURE]
    if failing:
        cols = [Column("case", key=True), Column("line", "right"), Column("language")]
        cols += [
            Column("question", wrap=True),
            Column("first failure"),
            Column("detail", wrap=True),
        ]
        cases = Table(cols, title="Failing cases")
        for row in failing:
            cases.add_row(
                row["case_id"],
                str(row["line"]),
                row["metadata"].get("language", ""),
                row["question"],
                LAYERS[row["first_failure"]][0],
                row["detail"],
            )
        out.append(cases)
    return out


def _group_tables(result: AnswersResult) -> list[Table]:
    out = []
    columns = group_columns(result)
    for field, values in result.groups.items():
        cols = [Column(field, key=True), Column("n", "right")]
        cols += [Column(title, "right") for title in columns.values()]
        table = Table(cols, title=f"By {field}")
        for value, scores_ in values.items():
            table.add_row(value, str(scores_["n"]), *(fmt(scores_.get(name)) for name in columns))
        out.append(table)
    return out


def print_answers(result: AnswersResult, console: Any = None) -> None:
    """Print the report to ``console`` (a :class:`rich.console.Console`; stdout by default)."""
    from rich.console import Console

    console = console or Console(highlight=False)
    print_line(console, header_line(result))
    for table in answers_tables(result):
        print_table(table, console)
    for line in result.policy:
        print_line(console, f"policy: {line}")
