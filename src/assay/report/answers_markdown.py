"""Markdown rendering of an :class:`~assay.answers.result.AnswersResult` (for PRs and wikis)."""

from __future__ import annotations

from assay.answers.result import LAYERS, LOWER_IS_BETTER, NO_FAILURE, SCORES, AnswersResult
from assay.report.answers_terminal import GROUP_COLUMNS, fmt


def _row(cells: list[str]) -> str:
    from assay.report.escape import md_cell

    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def answers_markdown(result: AnswersResult) -> str:
    """The report as Markdown: scores, failures by layer, failing cases, groups."""
    info = result.cases
    system = f"`{result.system_name}` on " if result.system_name else ""
    lines = [f"## Grounded answers: {system}{info.name}", ""]
    corpus = f"; corpus `{info.corpus}` ({info.corpus_ids} ids)" if info.corpus else ""
    lines += [f"{info.cases} cases, version `{info.version}`{corpus}.", ""]
    lines += [_row(["score", "value", "count", "measures"]), "|---|---:|---:|---|"]
    for name, score in result.scores.items():
        label, meaning = SCORES.get(name, (name, ""))
        arrow = " ↓" if name in LOWER_IS_BETTER else ""
        lines.append(
            _row(
                [
                    f"{label}{arrow}",
                    fmt(score.value),
                    f"{score.numerator}/{score.denominator}",
                    meaning,
                ]
            )
        )
    lines += [
        "",
        "### First failing layer",
        "",
        _row(["layer", "cases", "where to act"]),
        "|---|---:|---|",
    ]
    for layer, (label, action) in LAYERS.items():
        lines.append(_row([label, str(result.failures.get(layer, 0)), action]))
    lines.append(_row(["no failure", str(result.failures.get(NO_FAILURE, 0)), ""]))
    failing = [r for r in result.per_case if r["first_failure"] != NO_FAILURE]
    if failing:
        lines += [
            "",
            "### Failing cases",
            "",
            _row(["case", "line", "language", "question", "first failure", "detail"]),
            "|---|---:|---|---|---|---|",
        ]
        for row in failing:
            lines.append(
                _row(
                    [
                        row["case_id"],
                        str(row["line"]),
                        row["metadata"].get("language", ""),
                        row["question"],
                        LAYERS[row["first_failure"]][0],
                        row["detail"],
                    ]
                )
            )
    for field, values in result.groups.items():
        lines += [
            "",
            f"### By {field}",
            "",
            _row([field, "n", *GROUP_COLUMNS.values()]),
            "|---|" + "---:|" * (len(GROUP_COLUMNS) + 1),
        ]
        for value, scores in values.items():
            lines.append(
                _row([value, str(scores["n"]), *(fmt(scores.get(name)) for name in GROUP_COLUMNS)])
            )
    return "\n".join(lines) + "\n"
