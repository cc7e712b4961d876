"""Collect responses from a live RAG function into cases ready for review.

The user's function takes the question text (and, when it accepts a second
argument, the query record: ``query_id``, ``text``, ``no_answer`` and the
metadata) and returns either ``{"response": {...}, "retrieved_ids": [...]}`` or
a ``(response, retrieved_ids)`` pair. ``response`` is a
:class:`~assay.answers.models.GroundedResponse`, any pydantic model or a dict
of the same shape; retrieved ids may be ids, hits or ``(id, score)`` pairs.

Each written case expects ``declined`` for no-answer queries and ``answered``
otherwise, names the positively judged documents as ``expected_ids``, records
the ``system`` spec and holds a support skeleton (``null`` per claim citation)
for reviewers to fill in. A question the system fails on is recorded as a
failure and the collection goes on.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.answers.load import KNOWN
from assay.answers.models import GroundedResponse, dump_case
from assay.core.errors import AssayError, UsageError
from assay.io.fileio import write_text_atomic as write
from assay.systems.base import coerce_hits

RagFunction = Callable[..., Any]


def load_function(spec: str) -> RagFunction:
    """Import ``module:function`` (or ``path/to/file.py:function``)."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"--system {spec!r}: write module:function, e.g. my_rag:answer")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UsageError(f"--system {spec!r}: file {module_name} not found")
            spec_ = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec_)  # type: ignore[arg-type]
            spec_.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--system {spec!r}: cannot import {module_name}: {exc}") from None
    function = getattr(module, attr, None)
    if not callable(function):
        raise UsageError(f"--system {spec!r}: {module_name} has no function {attr!r}")
    return function


def call_system(
    function: RagFunction, question: str, record: Mapping[str, Any]
) -> tuple[GroundedResponse, list[str]]:
    """Call the user's function for one question; coerce what it returns."""
    from pydantic import BaseModel, ValidationError

    qid = record.get("query_id")
    try:
        args = (question, dict(record)) if _takes_record(function) else (question,)
        output = function(*args)
    except Exception as exc:
        raise UsageError(f"query {qid}: the system failed: {type(exc).__name__}: {exc}") from None
    if isinstance(output, Mapping) and "response" in output:
        response, retrieved = output["response"], output.get("retrieved_ids", [])
    elif isinstance(output, tuple | list) and len(output) == 2:
        response, retrieved = output
    else:
        raise UsageError(
            f"query {qid}: the system returned {type(output).__name__}; return "
            '{"response": {...}, "retrieved_ids": [...]} or (response, retrieved_ids)'
        )
    if isinstance(response, BaseModel) and not isinstance(response, GroundedResponse):
        response = response.model_dump()
    try:
        parsed = (
            response
            if isinstance(response, GroundedResponse)
            else GroundedResponse.model_validate(response)
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "response"
        raise UsageError(
            f"query {qid}: the system's response is not a grounded response: "
            f"{where}: {first['msg']}"
        ) from None
    try:
        ids = [hit.doc_id for hit in coerce_hits(list(retrieved or []))]
    except Exception as exc:
        raise UsageError(f"query {qid}: cannot read retrieved ids: {exc}") from None
    return parsed, list(dict.fromkeys(ids))


@dataclass(frozen=True)
class CollectFailure:
    """A question the system could not answer: its query id and the error."""

    query_id: str
    error: str

    def __str__(self) -> str:
        return f"query {self.query_id}: {self.error}"


@dataclass
class Collected:
    """What a collection produced: cases built and questions that failed."""

    cases: list[dict[str, Any]] = field(default_factory=list)
    failures: list[CollectFailure] = field(default_factory=list)


def collect_cases(
    function: RagFunction,
    judgments: Any,
    *,
    system: str | None = None,
    on_case: Callable[[str], None] | None = None,
) -> Collected:
    """Run ``function`` on every query of a judgment set; return cases and failures.

    ``judgments`` is a :class:`~assay.judgments.models.JudgmentSet`. A question
    whose call fails (the function raises, or returns something unreadable) is
    recorded as a :class:`CollectFailure` and the collection goes on. ``system``
    (the ``module:function`` spec) is written in each case; ``on_case`` is
    called with each query id once it is done, failed or not (progress bars).
    """
    qrels = judgments.qrels_dict()
    out = Collected()
    for query in judgments:
        record = {
            "query_id": query.query_id,
            "text": query.text,
            "no_answer": query.no_answer,
            **query.metadata,
        }
        try:
            response, retrieved = call_system(function, query.text, record)
        except AssayError as exc:
            error = str(exc).removeprefix(f"query {query.query_id}: ")
            out.failures.append(CollectFailure(query.query_id, error))
        else:
            judged = qrels.get(query.query_id, {})
            out.cases.append(build_case(query, response, retrieved, judged, system=system))
        if on_case is not None:
            on_case(query.query_id)
    return out


def build_case(
    query: Any,
    response: GroundedResponse,
    retrieved: list[str],
    judged: Mapping[str, int],
    *,
    system: str | None = None,
) -> dict[str, Any]:
    """One case awaiting review: expectations from the judgments, a support skeleton."""
    case: dict[str, Any] = {
        "case_id": query.query_id,
        "query_id": query.query_id,
        "question": query.text,
        "expected_status": "declined" if query.no_answer else "answered",
    }
    if system is not None:
        case["system"] = system
    positives = [doc for doc, grade in judged.items() if grade > 0]
    if positives and not query.no_answer:
        case["expected_ids"] = positives
    case["retrieved_ids"] = retrieved
    case["response"] = response.model_dump(mode="json")
    case["support"] = {
        str(i): {"judgments": dict.fromkeys(claim.citations), "judged_by": None}
        for i, claim in enumerate(response.claims)
    }
    for key, value in query.metadata.items():
        if key not in KNOWN and key not in case:
            case[key] = value
    return dump_case(case)


def write_cases(cases: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    """Write cases as JSONL atomically (a temporary file renamed into place)."""
    text = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    return write_text_atomic(path, text)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically (see :mod:`assay.io.fileio`)."""

    return write(path, text)


def _takes_record(function: RagFunction) -> bool:
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return any(p.kind == p.VAR_POSITIONAL for p in params) or len(positional) >= 2
