"""Run a grader over items: samples, majority, flip rate, unscored items, cost and budget.

:func:`grade_items` is the engine every model grader goes through. Each item
is asked ``samples`` times (the sample index is part of the cache key). An
answer that does not parse, breaks the schema, is a refusal or an error is
*unscored*: it is counted and listed, never folded into a grade. The item's
verdict is the majority of its scored samples (a tie goes to the lowest
value: the cautious grade); the flip rate is the share of items whose scored
samples were not unanimous. With a budget, a call that could pass it is not
made: the run stops there and says how far it got.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from assay.core.errors import AssayError, UsageError
from assay.core.redact import redact_text
from assay.core.retry import CircuitBreaker, CircuitOpen
from assay.executors import current
from assay.judges.graders import Grader
from assay.providers.accounting import Budget, CallRecord, Usage, cost_bound
from assay.providers.client import (
    ChatAnswer,
    ChatClient,
    OfflineMiss,
    ProviderError,
    parse_json_answer,
)
from assay.providers.pool import for_each

#: How many offline misses an error message lists.
MAX_LISTED = 20
#: Most samples of one item (``--samples``).
MAX_SAMPLES = 100


@dataclass(frozen=True)
class Item:
    """One thing to grade: an id for reports and the fields of the grader's template."""

    id: str
    fields: dict[str, str]
    meta: dict[str, Any] = field(default_factory=dict)


class ItemGrade(BaseModel):
    """The outcome for one item."""

    id: str
    verdict: dict[str, Any] | None = None
    samples: list[Any] = Field(default_factory=list)
    unscored: list[str] = Field(default_factory=list, description="why samples went unscored")
    flip: bool = False
    graded: bool = True
    usage: Usage = Field(default_factory=Usage)


class GradingRun(BaseModel):
    """Every item's outcome with the run's accounting."""

    grader: str
    rubric_version: str
    prompt_hash: str
    model: dict[str, Any]
    samples: int
    items: list[ItemGrade]
    usage: Usage
    max_cost: float | None = None
    stopped_at_budget: bool = False
    circuit_open: str | None = Field(
        None, description="why calls stopped after too many failed in a row (items left unasked)"
    )

    @property
    def scored(self) -> list[ItemGrade]:
        """Items with a verdict."""
        return [i for i in self.items if i.verdict is not None]

    def unscored_items(self) -> list[dict[str, Any]]:
        """Items graded but without a verdict, with the reasons."""
        return [
            {"id": i.id, "reasons": i.unscored}
            for i in self.items
            if i.graded and i.verdict is None
        ]

    def failed_calls(self) -> list[str]:
        """``item id: error`` for every item with a call that failed (after its retries)."""
        out = []
        for item in self.items:
            errors = [r for r in item.unscored if r.startswith("error: ")]
            out.extend(f"{item.id}: {r.removeprefix('error: ')}" for r in errors)
        return out

    @property
    def nothing_scored(self) -> bool:
        """Items were asked and none got a verdict."""
        return any(i.graded for i in self.items) and not self.scored

    @property
    def stopped_short(self) -> bool:
        """The budget or the circuit breaker stopped the calls (items left unasked)."""
        return self.stopped_at_budget or self.circuit_open is not None

    def failed_runs(self, who: str) -> list[tuple[str, list[str]]]:
        """``[(who, failed calls)]`` with secrets masked: what ``max_failed`` counts. A run
        :attr:`stopped_short` fails by :meth:`exit_code` alone (its report lists the calls)."""

        failed = [] if self.stopped_short else self.failed_calls()
        return [(who, [redact_text(f) for f in failed])]

    def exit_code(self) -> int:
        """1 when the calls :attr:`stopped_short` or nothing was scored, else 0 (failed
        calls aside: :meth:`failed_runs`)."""
        return 1 if self.stopped_short or self.nothing_scored else 0

    def flip_rate(self) -> float | None:
        """Share of items with two or more scored samples that were not unanimous."""
        multi = [i for i in self.items if len(i.samples) >= 2]
        return sum(i.flip for i in multi) / len(multi) if multi else None

    def summary(self) -> dict[str, Any]:
        """Counts for reports: items, scored, unscored, not graded, flip rate, usage."""
        return {
            "items": len(self.items),
            "scored": len(self.scored),
            "unscored": len(self.unscored_items()),
            "not_graded": sum(not i.graded for i in self.items),
            "flip_rate": self.flip_rate(),
            "stopped_at_budget": self.stopped_at_budget,
            "circuit_open": self.circuit_open,
            "max_cost": self.max_cost,
            **self.usage.model_dump(),
        }


def grade_items(
    items: Sequence[Item],
    grader: Grader,
    client: ChatClient,
    *,
    samples: int = 1,
    max_cost: float | None = None,
    on_call: Callable[[CallRecord, Budget], None] | None = None,
    budget: Budget | None = None,
) -> GradingRun:
    """Grade every item ``samples`` times through ``client``; see the module docstring.

    ``budget`` shares one budget between several runs (a jury's models); by default
    the run has its own, of ``max_cost``.

    Raises :class:`OfflineMiss` listing the missing calls when the client is
    offline and some answers are not cached (nothing is returned then).
    """
    check_samples(samples)
    budget = Budget(max_cost) if budget is None else budget

    client = current().chat_client(client)
    slots: dict[tuple[int, int], tuple[CallRecord, Any, str | None]] = {}
    misses: list[tuple[int, int, str]] = []
    lock = threading.Lock()
    stop = threading.Event()
    breaker = CircuitBreaker(client.config.max_consecutive_failures)

    def one(task: tuple[int, int]) -> None:
        i, s = task
        if stop.is_set():
            return
        outcome = _ask(items[i], s, grader, client, budget, misses, lock, i)
        if outcome is None:  # budget refused or offline miss
            if budget.exhausted:
                stop.set()
            return
        with lock:
            slots[task] = outcome
        _count(breaker, outcome[0], stop)
        if on_call is not None:
            on_call(outcome[0], budget)

    tasks = ((i, s) for i in range(len(items)) for s in range(samples))
    workers = max(1, min(client.config.concurrency, len(items) * samples or 1))
    for_each(tasks, one, workers, stop)
    if misses:
        misses.sort()
        shown = "\n".join(f"  {m}" for _, _, m in misses[:MAX_LISTED])
        more = f"\n  ... and {len(misses) - MAX_LISTED} more" if len(misses) > MAX_LISTED else ""
        raise OfflineMiss(
            f"--offline: {len(misses)} call(s) are not in the model-call cache:\n{shown}{more}\n"
            "run once without --offline (or point --cache-dir at the recorded cache)"
        )
    graded = [_item_grade(item, i, samples, slots, grader) for i, item in enumerate(items)]
    return GradingRun(
        grader=grader.name,
        rubric_version=grader.rubric_version,
        prompt_hash=grader.prompt_hash,
        model=client.config.shown(),
        samples=samples,
        items=graded,
        usage=Usage.total(r for r, _, _ in slots.values()),
        max_cost=max_cost,
        stopped_at_budget=budget.exhausted,
        circuit_open=circuit_message(breaker),
    )


def _count(breaker: CircuitBreaker, record: CallRecord, stop: threading.Event) -> None:
    """Feed the breaker one call's outcome; an open breaker stops the run."""
    if record.error is None:
        breaker.success()
        return
    breaker.failure(record.error)
    if breaker.is_open:
        stop.set()


def circuit_message(breaker: CircuitBreaker) -> str | None:
    """Why calls stopped (``None`` while the breaker is closed)."""
    try:
        breaker.check()
    except CircuitOpen as exc:
        return f"stopped calling the model after {exc}"
    return None


def check_samples(samples: object) -> int:
    """``samples`` must be a whole number from 1 to :data:`MAX_SAMPLES`."""

    ok = isinstance(samples, int) and not isinstance(samples, bool)
    if not ok or not 1 <= samples <= MAX_SAMPLES:
        raise UsageError(
            f"`samples` must be a whole number from 1 to {MAX_SAMPLES}, got {samples!r}",
            "samples",
        )
    return samples


def _ask(
    item: Item,
    sample: int,
    grader: Grader,
    client: ChatClient,
    budget: Budget,
    misses: list[tuple[int, int, str]],
    lock: threading.Lock,
    index: int = 0,
) -> tuple[CallRecord, Any, str | None] | None:
    """(record, parsed answer or None, unscored reason or None) of one call."""
    messages = grader.messages(item.fields)
    asked = call_within_budget(client, messages, grader.schema, sample, budget)
    if asked is None:
        if client.offline:
            with lock:
                misses.append((index, sample, f"{item.id} (sample {sample + 1})"))
        return None
    answer, error = asked
    if answer is None:
        return CallRecord(error=error), None, f"error: {error}"
    if answer.refusal is not None or answer.content is None:
        return answer.record, None, f"refused: {answer.refusal or 'no content'}"
    try:
        parsed = grader.parse(parse_json_answer(answer.content))
    except ValueError as exc:
        return answer.record, None, f"unparsable: {exc}"
    return answer.record, parsed, None


def call_within_budget(
    client: ChatClient,
    messages: list[dict[str, str]],
    schema: dict[str, Any] | None,
    sample: int,
    budget: Budget,
) -> tuple[ChatAnswer | None, str | None] | None:
    """One call through the cache and the budget: ``(answer, None)`` or ``(None, error)``.

    ``None`` when the call was not made: offline and not cached, or the
    budget refused its cost bound (reserved before, settled after the call).
    """
    answer = client.cached(messages, schema, sample)
    if answer is not None:
        return answer, None
    if client.offline:
        return None
    c = client.config
    bound = cost_bound(messages, c.max_tokens, c.input_price, c.output_price)
    if not budget.reserve(bound):
        return None
    try:
        answer = client.complete(messages, schema, sample, look_up=False)
    except (ProviderError, OfflineMiss) as exc:
        budget.settle(bound, 0.0)
        return None, str(exc)
    budget.settle(bound, answer.record.cost)
    return answer, None


def _item_grade(
    item: Item,
    index: int,
    samples: int,
    slots: dict[tuple[int, int], tuple[CallRecord, Any, str | None]],
    grader: Grader,
) -> ItemGrade:
    got = [slots[index, s] for s in range(samples) if (index, s) in slots]
    scored = [p for _, p, _ in got if p is not None]
    reasons = [r for _, _, r in got if r is not None]
    usage = Usage.total(r for r, _, _ in got)
    if not got:
        return ItemGrade(id=item.id, graded=False, usage=usage)
    if not scored:
        return ItemGrade(id=item.id, unscored=reasons, usage=usage)
    ballots = [grader.ballot(p) for p in scored]
    counts = Counter(ballots)
    top = max(counts.values())
    winner = min((b for b in counts if counts[b] == top), key=_order)
    verdict = next(p for p, b in zip(scored, ballots, strict=True) if b == winner)
    return ItemGrade(
        id=item.id,
        verdict=verdict,
        samples=ballots if samples > 1 else [],
        unscored=reasons,
        flip=len(counts) > 1,
        usage=usage,
    )


def _order(ballot: Any) -> Any:
    return tuple(ballot) if isinstance(ballot, tuple) else (ballot,)


class GradingError(AssayError):
    """A grading run that cannot go on (no items, an unknown model)."""
