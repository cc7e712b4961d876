"""What the answers renderers share: the integrity ledger's rows and the group columns.

Reads the result only.
"""

from __future__ import annotations

from assay.answers.result import SCORES, AnswersResult

#: Short column titles of the group table of structured cases.
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


def group_columns(result: AnswersResult) -> dict[str, str]:
    """``{score name: column title}`` of the group table (every score of free-text cases)."""
    if result.source == "cases":
        return GROUP_COLUMNS
    return {name: SCORES.get(name, (name, ""))[0] for name in result.scores}


def ledger_rows(result: AnswersResult) -> list[list[str]]:
    """One row per measure: label, cases scored ``n/N``, cases left out with their reasons."""
    ledger = result.ledger
    if ledger is None:
        return []
    rows = []
    for name, entry in ledger.measures.items():
        label = SCORES.get(name, (name, ""))[0]
        out = sum(entry.left_out.values())
        reasons = "; ".join(f"{reason}: {n}" for reason, n in entry.left_out.items())
        rows.append(
            [label, f"{entry.scored}/{ledger.cases_read}", f"{out}/{ledger.cases_read}", reasons]
        )
    return rows


#: Column titles of the ledger table.
LEDGER_HEADER = ["measure", "scored", "left out", "why left out"]
