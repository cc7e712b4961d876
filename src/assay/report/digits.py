"""How many decimals a score table shows."""

from __future__ import annotations


def default_digits(n: int) -> int:
    """Decimals justified by a set of ``n`` queries.

    One query moves a mean by ``1/n``: with 14 queries that is 0.07, so a third
    decimal is noise. Two decimals below 100 queries, three below 10,000, four
    (trec_eval's precision) beyond. JSON and CSV output always carry full
    precision; ``--digits`` overrides.
    """
    if n < 100:
        return 2
    if n < 10_000:
        return 3
    return 4


def fmt(value: float | int | None, digits: int) -> str:
    """Format a score with ``digits`` decimals; counts as integers; None as '-'."""
    if value is None or value != value:  # None or NaN: no value (e.g. an empty group)
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.{digits}f}"
