"""Run a generation matrix: every prompt x provider x case, ``repeats`` times, then assert.

Model calls go through :class:`assay.providers.client.ChatClient` (the SQLite
call cache is keyed with the repeat index as sample index, so a rerun replays
all N repeats and makes no call; a cached answer keeps its original tokens,
latency and cost) and one :class:`~assay.providers.accounting.Budget` shared by
every call. Python baselines are called directly and cost nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from assay.core.errors import UsageError
from assay.core.retry import CircuitBreaker
from assay.executors import current
from assay.judges.graders import CLAIM_SUPPORT
from assay.judges.grading import MAX_LISTED, Item, call_within_budget, circuit_message, grade_items
from assay.matrix.assertions import ASSERTIONS, check, parse_response, passed
from assay.matrix.config import Case, MatrixConfig, Prompt, Provider, variant_name
from assay.matrix.result import Attempt, MatrixResult
from assay.matrix.summary import build_result
from assay.providers.accounting import Budget, CallRecord, Usage, check_max_cost
from assay.providers.client import OfflineMiss, open_client
from assay.providers.pool import for_each
from assay.systems.python import load_function
from assay.systems.usercode import call_baseline

#: The JSON schema of the answer (the grounded-response contract, strict form).
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["answered", "declined"]},
        "answer": {"type": ["string", "null"]},
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "citations": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["text", "citations"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["status", "answer", "claims"],
    "additionalProperties": False,
}

USER_TEMPLATE = """\
Question: {question}

Documents:
{documents}

Reply with a JSON object: {{"status": "answered" or "declined", "answer": text or null, \
"claims": [{{"text": one statement, "citations": [ids of the documents that state it]}}]}}"""


def messages_for(prompt: Prompt, case: Case) -> list[dict[str, str]]:
    """The chat messages of one cell: the system prompt, then the question and evidence."""
    docs = "\n".join(f"[{doc_id}] {text}" for doc_id, text in case.documents)
    user = USER_TEMPLATE.format(question=case.question, documents=docs)
    return [{"role": "system", "content": prompt.text}, {"role": "user", "content": user}]


def run_matrix(
    config: MatrixConfig,
    *,
    cache_dir: str | None = None,
    offline: bool = False,
    no_cache: bool = False,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> MatrixResult:
    """Ask every cell ``config.repeats`` times, check the assertions, summarise and compare.

    Raises :class:`~assay.providers.client.OfflineMiss` listing the missing
    calls when ``offline`` and some answers are not cached.
    """

    if offline and no_cache:
        raise UsageError("--offline replays the model-call cache: drop --no-cache")
    check_max_cost(config.max_cost)
    clients = _clients(config, cache_dir, offline, no_cache)
    budget = Budget(config.max_cost)
    slots: dict[tuple[int, int, int, int], Attempt] = {}
    misses: list[str] = []
    lock = threading.Lock()
    tasks = (  # taken lazily: never the whole list at once
        (pi, mi, ci, r)
        for pi in range(len(config.prompts))
        for mi in range(len(config.providers))
        for ci in range(len(config.cases))
        for r in range(config.repeats)
    )

    breakers = {
        name: CircuitBreaker(client.config.max_consecutive_failures)
        for name, client in clients.items()
    }

    def one(task: tuple[int, int, int, int]) -> None:
        pi, mi, ci, r = task
        prompt, provider, case = config.prompts[pi], config.providers[mi], config.cases[ci]
        breaker = breakers.get(provider.name)
        attempt = _guarded(
            breaker, lambda: _attempt(config, prompt, provider, case, r, clients, budget), r
        )
        if attempt is None:
            if offline and provider.kind == "model":
                with lock:
                    misses.append(
                        f"{variant_name(prompt.name, provider.name)} {case.case_id} "
                        f"(repeat {r + 1})"
                    )
            return
        with lock:
            slots[task] = attempt
        if on_attempt is not None:
            on_attempt(attempt)

    workers = max(1, min(8, max((c.config.concurrency for c in clients.values()), default=1)))
    try:
        for_each(tasks, one, workers)
        if misses:
            _raise_misses(misses)
        judge_usage = None
        if config.judge is not None and "rubric" in (config.assertions or ASSERTIONS):
            judge_usage = _judge(config, slots, cache_dir, offline, no_cache, budget)
    finally:
        for client in clients.values():
            client.close()
    return build_result(config, slots, budget, judge_usage)


def _guarded(
    breaker: CircuitBreaker | None, ask: Callable[[], Attempt | None], repeat: int
) -> Attempt | None:
    """``ask()`` unless the model's breaker is open (then a failed attempt, not asked)."""

    why = None if breaker is None else circuit_message(breaker)
    if why is not None:  # this model failed too often in a row
        return _failed(repeat, f"not asked: {why}", CallRecord(error=why))
    attempt = ask()
    if breaker is not None and attempt is not None:
        if attempt.is_failed_call:
            breaker.failure(str(attempt.error))
        else:
            breaker.success()
    return attempt


def _clients(
    config: MatrixConfig, cache_dir: str | None, offline: bool, no_cache: bool
) -> dict[str, Any]:

    return {
        provider.name: current().chat_client(  # the rate limit; actors on Ray
            open_client(provider.config, cache_dir=cache_dir, offline=offline, no_cache=no_cache)
        )
        for provider in config.providers
        if provider.kind == "model"
    }


def _attempt(
    config: MatrixConfig,
    prompt: Prompt,
    provider: Provider,
    case: Case,
    repeat: int,
    clients: dict[str, Any],
    budget: Budget,
) -> Attempt | None:
    if provider.kind == "baseline":
        content, record = _call_baseline(config, provider, prompt, case)
        if record.error is not None:
            return _failed(repeat, record.error, record)
    else:
        asked = call_within_budget(
            clients[provider.name], messages_for(prompt, case), RESPONSE_SCHEMA, repeat, budget
        )
        if asked is None:
            return None
        answer, error = asked
        if answer is None:
            record = CallRecord(error=error)
            content = None
        else:
            record = answer.record
            content = answer.content
            if answer.refusal is not None:
                error = f"refused: {answer.refusal}"
        if error is not None:
            return _failed(repeat, error, record)
    outcomes, reasons, response = check(case, content, config.assertions)
    return Attempt(
        repeat=repeat,
        passed=passed(outcomes),
        assertions=outcomes,
        reasons=reasons,
        status=None if response is None else response.status,
        content=content,
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        latency=record.latency,
        cost=record.cost,
        cached=record.cached,
    )


def _failed(repeat: int, error: str, record: CallRecord) -> Attempt:
    outcomes: dict[str, bool | None] = dict.fromkeys(ASSERTIONS)
    outcomes["contract"] = False
    return Attempt(
        repeat=repeat,
        passed=False,
        assertions=outcomes,
        reasons=[error],
        error=error,
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        latency=record.latency,
        cost=record.cost,
        cached=record.cached,
    )


_FUNCTIONS: dict[tuple[str, str], Any] = {}
_FUNCTIONS_LOCK = threading.Lock()


def _call_baseline(
    config: MatrixConfig, provider: Provider, prompt: Prompt, case: Case
) -> tuple[str | None, CallRecord]:
    """Call a Python baseline: ``function(system_prompt, question, documents)``."""

    key = (config.base_dir, str(provider.function))
    with _FUNCTIONS_LOCK:
        if key not in _FUNCTIONS:
            _FUNCTIONS[key] = load_function(str(provider.function), base_dir=config.base_dir)
        function = _FUNCTIONS[key]
    docs = [{"id": d, "text": t} for d, t in case.documents]
    start = time.monotonic()
    try:  # bounded in time and size: assay.systems.usercode
        content = call_baseline(function, provider, prompt.text, case.question, docs)
    except Exception as exc:  # a baseline's bug is that cell's failure, not the run's
        return None, CallRecord(error=f"{type(exc).__name__}: {exc}")
    return content, CallRecord(latency=time.monotonic() - start)


def _raise_misses(misses: list[str]) -> None:

    misses.sort()
    shown = "\n".join(f"  {m}" for m in misses[:MAX_LISTED])
    more = f"\n  ... and {len(misses) - MAX_LISTED} more" if len(misses) > MAX_LISTED else ""
    raise OfflineMiss(
        f"--offline: {len(misses)} call(s) are not in the model-call cache:\n{shown}{more}\n"
        "run once without --offline (or point --cache-dir at the recorded cache)"
    )


def _judge(
    config: MatrixConfig,
    slots: dict[tuple[int, int, int, int], Attempt],
    cache_dir: str | None,
    offline: bool,
    no_cache: bool,
    budget: Budget,
) -> Usage:
    """Fill the ``rubric`` assertion: every claim supported by a cited document."""

    assert config.judge is not None
    items: list[Item] = []
    for key, attempt in slots.items():
        case = config.cases[key[2]]
        if attempt.assertions.get("contract") and attempt.status == "answered":
            response, _ = parse_response(attempt.content)
            docs = dict(case.documents)
            for ci, claim in enumerate(response.claims):
                for doc in claim.citations:
                    if doc in docs:
                        fields = {"claim": claim.text, "source": docs[doc]}
                        items.append(Item(f"{key}|{ci}|{doc}", fields, {"key": key, "claim": ci}))
    if not items:
        return Usage()
    left = None if budget.limit is None else max(0.0, budget.limit - budget.spent)
    with open_client(
        config.judge.config, cache_dir=cache_dir, offline=offline, no_cache=no_cache
    ) as client:
        run = grade_items(items, CLAIM_SUPPORT, client, max_cost=left)
    supported: dict[tuple[Any, int], bool] = {}
    graded: set[Any] = set()
    for item, grade in zip(items, run.items, strict=True):
        k, ci = item.meta["key"], item.meta["claim"]
        if grade.verdict is not None:
            graded.add(k)
            supported[k, ci] = supported.get((k, ci), False) or bool(grade.verdict["supported"])
    for (k, ci), ok in sorted(supported.items(), key=lambda x: str(x[0])):
        attempt = slots[k]
        if not ok:
            attempt.reasons.append(f"claim {ci} is not supported by its citations (judge)")
    for k in graded:
        attempt = slots[k]
        ok = all(v for (kk, _), v in supported.items() if kk == k)
        attempt.assertions["rubric"] = ok
        attempt.passed = passed(attempt.assertions)
    return run.usage
