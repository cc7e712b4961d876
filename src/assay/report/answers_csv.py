"""CSV rendering of an :class:`~assay.answers.result.AnswersResult`.

One row for all cases (``group_field`` and ``group`` empty) and one per group,
with ``n`` and every score (empty when undefined).
"""

from __future__ import annotations

from assay.answers.result import AnswersResult
from assay.io.csvout import csv_text


def answers_csv(result: AnswersResult) -> str:
    """Scores as CSV text: the overall row, then one row per group value."""
    names = list(result.scores)
    overall = [result.scores[n].value for n in names]
    rows: list[list[object]] = [["", "", result.cases.cases, *overall]]
    for field, values in result.groups.items():
        for value, scores in values.items():
            rows.append([field, value, scores["n"], *(scores.get(n) for n in names)])
    return csv_text(["group_field", "group", "n", *names], rows)
