"""Markdown rendering of an :class:`~assay.answers.result.AnswersResult` (for PRs and wikis)."""

from __future__ import annotations

from assay.answers.result import LAYERS, LOWER_IS_BETTER, NO_FAILURE, SCORES, AnswersResult
from assay.report.answers_ledger import LEDGER_HEADER, group_columns, ledger_rows
from assay.report.answers_terminal import fmt
from assay.report.table import markdown_rows


def answers_markdown(result: AnswersResult) -> str:
    """The report as Markdown: scores, failures by layer, failing cases, groups."""
    info = result.cases
    system = f"`{result.system_name}` on " if result.system_name else ""
    kind = "Grounded answers" if result.source == "cases" else f"Answers ({result.source})"
    lines = [f"## {kind}: {system}{info.name}", ""]
    corpus = f"; corpus `{info.corpus}` ({info.corpus_ids} ids)" if info.corpus else ""
    lines += [f"{info.cases} cases, version `{info.version}`{corpus}.", ""]
    scores = []
    for name, score in result.scores.items():
        label, meaning = SCORES.get(name, (name, "the contexts as a ranked list"))
        arrow = " ↓" if name in LOWER_IS_BETTER else ""
        count = f"{score.numerator}/{score.denominator}"
        scores.append([f"{label}{arrow}", fmt(score.value), count, meaning])
    lines += markdown_rows(["score", "value", "count", "measures"], scores, right=(1, 2))
    if result.ledger is not None:
        lines += ["", f"### Ledger ({result.ledger.cases_read} cases read)", ""]
        lines += markdown_rows(LEDGER_HEADER, ledger_rows(result), right=(1, 2))
    if result.source == "cases":
        lines += _layers(result)
    lines += _groups(result)
    for line in result.policy:
        lines += ["", f"Policy: {line}"]
    return "\n".join(lines) + "\n"


def _layers(result: AnswersResult) -> list[str]:
    lines = ["", "### First failing layer", ""]
    layers = [[label, result.failures.get(key, 0), act] for key, (label, act) in LAYERS.items()]
    layers.append(["no failure", result.failures.get(NO_FAILURE, 0), ""])
    lines += markdown_rows(["layer", "cases", "where to act"], layers, right=(1,))
    failing = [r for r in result.per_case if r["first_failure"] != NO_FAILURE]
    if failing:
        lines += ["", "### Failing cases", ""]
        header = ["case", "line", "language", "question", "first failure", "detail"]
        rows = [
            [
                row["case_id"],
                row["line"],
                row["metadata"].get("language", ""),
                row["question"],
                LAYERS[row["first_failure"]][0],
                row["detail"],
            ]
            for row in failing
        ]
        lines += markdown_rows(header, rows, right=(1,))
    return lines


def _groups(result: AnswersResult) -> list[str]:
    lines: list[str] = []
    columns = group_columns(result)
    for field, values in result.groups.items():
        lines += ["", f"### By {field}", ""]
        header = [field, "n", *columns.values()]
        rows = [
            [value, scores["n"], *(fmt(scores.get(name)) for name in columns)]
            for value, scores in values.items()
        ]
        lines += markdown_rows(header, rows, right=range(1, len(header)))
    return lines
