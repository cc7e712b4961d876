"""Terminal (rich) rendering of an :class:`~assay.answers.result.AnswersResult`.

Reads the result only: every number and label shown comes from the result.
"""

from __future__ import annotations

from typing import Any

from assay.answers.result import LAYERS, LOWER_IS_BETTER, NO_FAILURE, SCORES, AnswersResult

#: Short column titles of the group table.
GROUP_COLUMNS = {
    "status_accuracy": "status",
    "provenance_pass_rate": "provenance",
    "claim_support_rate": "support",
    "citation_validity": "citations",
    "refusal_accuracy": "refusal",
    "false_refusal_rate": "false ref.",
    "hallucination_rate": "halluc.",
    "numeric_accuracy": "numeric",
}


def fmt(value: float | None) -> str:
    """A score with two decimals; an en dash when undefined."""
    return "–" if value is None else f"{value:.2f}"


def answers_tables(result: AnswersResult) -> list[Any]:
    """Rich renderables: header, scores, failures by layer, failing cases, groups."""
    from rich.table import Table
    from rich.text import Text

    info = result.cases
    corpus = f", corpus {info.corpus} ({info.corpus_ids} ids)" if info.corpus else ""
    system = f"{result.system_name} on " if result.system_name else ""
    out: list[Any] = [
        Text(
            f"Grounded answers: {system}{info.name} ({info.cases} cases, {info.version}{corpus})",
            style="bold",
        )
    ]
    scores = Table(title="Scores", title_justify="left")
    for col in ("score", "value", "count"):
        scores.add_column(col, justify="left" if col == "score" else "right")
    for name, score in result.scores.items():
        label = SCORES.get(name, (name, ""))[0]
        arrow = " (lower is better)" if name in LOWER_IS_BETTER else ""
        scores.add_row(
            f"{label}{arrow}", fmt(score.value), f"{score.numerator}/{score.denominator}"
        )
    out.append(scores)

    layers = Table(title="First failing layer", title_justify="left")
    for col in ("layer", "cases", "where to act"):
        layers.add_column(col, justify="right" if col == "cases" else "left")
    for layer, (label, action) in LAYERS.items():
        layers.add_row(label, str(result.failures.get(layer, 0)), action)
    layers.add_row("no failure", str(result.failures.get(NO_FAILURE, 0)), "")
    out.append(layers)

    failing = [r for r in result.per_case if r["first_failure"] != NO_FAILURE]
    if failing:
        cases = Table(title="Failing cases", title_justify="left")
        for col in ("case", "line", "language", "question", "first failure", "detail"):
            cases.add_column(col, justify="right" if col == "line" else "left")
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

    for field, values in result.groups.items():
        table = Table(title=f"By {field}", title_justify="left")
        table.add_column(field)
        table.add_column("n", justify="right")
        for title in GROUP_COLUMNS.values():
            table.add_column(title, justify="right")
        for value, scores_ in values.items():
            table.add_row(
                value, str(scores_["n"]), *(fmt(scores_.get(name)) for name in GROUP_COLUMNS)
            )
        out.append(table)
    return out


def print_answers(result: AnswersResult, console: Any = None) -> None:
    """Print the report to ``console`` (a :class:`rich.console.Console`; stdout by default)."""
    from rich.console import Console

    console = console or Console(highlight=False)
    for renderable in answers_tables(result):
        console.print(renderable)
