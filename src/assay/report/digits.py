"""How many decimals a score shows: the one rule every renderer uses.

Counts (measures whose registry aggregation is ``sum``: ``NumRet``, ``NumRel``,
``NumRelRet``, ``NumQ``) are whole numbers in every cell, as trec_eval prints
them; every other measure shows the decimals asked for.
"""

from __future__ import annotations

from assay.metrics.measures import is_count


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


def _whole(value: float) -> bool:
    """True when ``value`` is a whole number, up to the rounding of ``n * mean``."""
    return abs(value - round(value)) <= 1e-9 * max(1.0, abs(value))


def metric_digits(metric: str | None, digits: int, value: float | None = None) -> int:
    """Decimals of a value of ``metric``: 0 for a count, else ``digits``.

    With ``value``, a count's value that is not a whole number (a gate's mean
    per query of a count) keeps ``digits``: rounding it would misstate it.
    """
    if not is_count(metric):
        return digits
    return 0 if value is None or value != value or _whole(value) else digits


def fmt(value: float | int | None, digits: int, metric: str | None = None) -> str:
    """Format a score with ``digits`` decimals; counts (ints, or whole values of a
    count ``metric``) as whole numbers; None and NaN as '-'."""
    if value is None or value != value:  # None or NaN: no value (e.g. an empty group)
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.{metric_digits(metric, digits, value)}f}"


def fmt_signed(value: float, digits: int, metric: str | None = None) -> str:
    """A difference with an explicit sign; a count's whole difference as a whole number."""
    return f"{value:+.{metric_digits(metric, digits, value)}f}"


def exact(value: float | int | None, metric: str | None = None) -> float | int | None:
    """A value at full precision for CSV: a count's whole value as an int (``500``)."""
    if isinstance(value, float) and value == value and is_count(metric) and _whole(value):
        return round(value)
    return value


def or_dash(value: float | None, spec: str = ".3f") -> str:
    """A number, or ``-`` when missing."""
    return "-" if value is None else format(value, spec)
