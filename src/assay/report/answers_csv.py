"""CSV rendering of an :class:`~assay.answers.result.AnswersResult`.

One row for all cases (``group_field`` and ``group`` empty) and one per group,
with ``n`` and every score (empty when undefined).
"""

from __future__ import annotations

import csv
import io

from assay.answers.result import AnswersResult


def answers_csv(result: AnswersResult) -> str:
    """Scores as CSV text: the overall row, then one row per group value."""
    names = list(result.scores)
    buffer = io.StringIO()
    from assay.report.escape import csv_cell

    writer = _Safe(csv.writer(buffer, lineterminator="\n"), csv_cell)
    writer.writerow(["group_field", "group", "n", *names])
    overall = [result.scores[n].value for n in names]
    writer.writerow(["", "", result.cases.cases, *("" if v is None else v for v in overall)])
    for field, values in result.groups.items():
        for value, scores in values.items():
            writer.writerow(
                [
                    field,
                    value,
                    scores["n"],
                    *("" if scores.get(n) is None else scores[n] for n in names),
                ]
            )
    return buffer.getvalue()


class _Safe:
    """A csv writer whose cells go through :func:`assay.report.escape.csv_cell`."""

    def __init__(self, writer: object, clean: object) -> None:
        self._writer = writer
        self._clean = clean

    def writerow(self, row: list[object]) -> None:
        """Write one row, every cell neutralised."""
        self._writer.writerow([self._clean(cell) for cell in row])  # type: ignore[attr-defined,operator]
