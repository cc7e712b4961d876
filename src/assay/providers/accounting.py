"""What model calls cost: tokens, latency and dollars per call, item and run; the budget.

A :class:`Budget` stops work *before* the budget would be passed: each call
reserves an upper bound of its cost first (every input byte counted as a
token, the output at ``max_tokens``) and settles the real cost when it ends.
A call whose reservation does not fit is not made.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from assay.core.errors import UsageError


class Usage(BaseModel):
    """Totals of some calls. ``cost`` is what they cost when made; ``spent`` what this run paid."""

    calls: int = 0
    cached: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_seconds: float = 0.0
    cost: float = 0.0
    spent: float = 0.0

    @classmethod
    def total(cls, records: Iterable[CallRecord]) -> Usage:
        """Sum call records. The amounts are summed exactly rounded (``math.fsum``), so the
        order the calls ended in (concurrent calls end in any order) never changes a total
        in its last digit: 0.000921 and 0.0009210000000000002 were the same calls."""
        records = list(records)
        out = cls()
        for r in records:
            out.calls += 1
            out.cached += int(r.cached)
            out.errors += int(r.error is not None)
            out.input_tokens += r.input_tokens
            out.output_tokens += r.output_tokens
        out.latency_seconds = math.fsum(r.latency for r in records)
        out.cost = math.fsum(r.cost for r in records)
        out.spent = math.fsum(0.0 if r.cached else r.cost for r in records)
        return out


@dataclass(frozen=True)
class CallRecord:
    """One call's accounting (a cached answer keeps its original tokens, latency and cost)."""

    input_tokens: int = 0
    output_tokens: int = 0
    latency: float = 0.0
    cost: float = 0.0
    cached: bool = False
    attempts: int = 0
    error: str | None = None


def check_max_cost(value: object) -> float | None:
    """``max_cost`` must be ``None`` or a finite number of USD >= 0 (NaN and inf switch
    a budget off, so they are refused)."""
    if value is None:
        return None
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < 0:
        raise UsageError(
            f"`max_cost` must be a finite number of USD >= 0, got {value!r}", "max_cost"
        )
    return float(value)


class Budget:
    """A spending limit in USD shared by concurrent calls (``None``: no limit)."""

    def __init__(self, limit: float | None) -> None:
        self.limit = check_max_cost(limit)
        self.spent = 0.0
        self.reserved = 0.0
        self.refused = 0
        self._lock = threading.Lock()

    def reserve(self, amount: float) -> bool:
        """Hold ``amount`` for a call about to start; ``False`` when it could pass the limit."""
        with self._lock:
            if self.limit is not None and self.spent + self.reserved + amount > self.limit:
                self.refused += 1
                return False
            self.reserved += amount
            return True

    def settle(self, reserved: float, actual: float) -> None:
        """Release a reservation and book what the call really cost."""
        with self._lock:
            self.reserved = max(0.0, self.reserved - reserved)
            self.spent += actual

    @property
    def exhausted(self) -> bool:
        """True once a call was refused for lack of budget."""
        return self.refused > 0


def cost_bound(
    messages: list[dict[str, str]], max_tokens: int, price_in: float, price_out: float
) -> float:
    """An upper bound of a call's cost: one token per input byte (plus 8 per message)."""
    tokens_in = sum(len(str(m.get("content", "")).encode()) + 8 for m in messages)
    return (tokens_in * price_in + max_tokens * price_out) / 1e6
