"""Free-text answer cases as RAG teams keep them (ragas, deepeval, traces), field by field.

A :class:`TextCase` is one question, the system's free-text answer, the
retrieved contexts (text, sometimes ids and scores), the reference answers and
the reference contexts. :data:`FIELDS` maps each peer's field names onto it:

=====================  ==========================  ===================
assay                  ragas (``SingleTurnSample``) deepeval (``LLMTestCase``)
=====================  ==========================  ===================
question               ``user_input``               ``input``
answer                 ``response``                 ``actual_output``
contexts               ``retrieved_contexts``       ``retrieval_context``
context ids            ``retrieved_context_ids``    (none)
references             ``reference``                ``expected_output``
reference contexts     ``reference_contexts``       ``context``
reference context ids  ``reference_context_ids``    (none)
=====================  ==========================  ===================

ragas 0.1's column names (``question``, ``answer``, ``contexts``,
``ground_truth``) are read too. A case id is ``id``, ``case_id`` or
``sample_id`` when present, else the row's place. Every other field is kept: a
text, number or boolean as metadata (``--by`` can group on it), anything else in
``extra``. :func:`map_row` checks one row, logging each problem with its place
and field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.core.errors import ProblemLog

#: assay field -> the keys each format writes it under (first present wins).
FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "ragas": {
        "question": ("user_input", "question"),
        "answer": ("response", "answer"),
        "contexts": ("retrieved_contexts", "contexts"),
        "context_ids": ("retrieved_context_ids",),
        "references": ("reference", "ground_truth", "ground_truths"),
        "reference_contexts": ("reference_contexts",),
        "reference_ids": ("reference_context_ids",),
    },
    "deepeval": {
        "question": ("input",),
        "answer": ("actual_output",),
        "contexts": ("retrieval_context",),
        "context_ids": (),
        "references": ("expected_output",),
        "reference_contexts": ("context",),
        "reference_ids": (),
    },
}
#: The key that must be present in every row of each format.
REQUIRED = {"ragas": "answer", "deepeval": "answer"}
ID_KEYS = ("id", "case_id", "sample_id")
LIST_FIELDS = ("contexts", "context_ids", "reference_contexts", "reference_ids")


@dataclass(frozen=True)
class Context:
    """One retrieved (or reference) context: its text, id and retriever score, as known."""

    text: str | None = None
    doc_id: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class TextCase:
    """One free-text case. ``answer`` is ``None`` when the source holds no response
    (``gaps`` then says why); ``where`` names its place (``line 3``, ``row 2``,
    ``trace 4bf9...``) for reports."""

    case_id: str
    question: str | None
    answer: str | None
    contexts: tuple[Context, ...] = ()
    references: tuple[str, ...] = ()
    reference_contexts: tuple[Context, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None
    where: str = ""
    gaps: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TextCaseSet:
    """The cases of one file, the format read and the file's content version."""

    cases: tuple[TextCase, ...]
    source: str
    path: str | None = None
    name: str = "cases"
    version: str = ""

    def __len__(self) -> int:
        return len(self.cases)

    def metadata_fields(self) -> list[str]:
        """Metadata fields present in any case, first-seen order."""
        seen: dict[str, None] = {}
        for case in self.cases:
            for key in case.metadata:
                seen.setdefault(key, None)
        return list(seen)


def map_row(
    obj: Mapping[str, Any], fmt: str, line: int | None, place: str, log: ProblemLog
) -> TextCase | None:
    """One row of ``fmt`` (``ragas`` or ``deepeval``) as a :class:`TextCase`.

    Problems are logged with ``line`` (and, for rows without a line, the field
    prefixed by ``place``); ``None`` when the row has any.
    """
    before = len(log.problems)
    names = FIELDS[fmt]
    prefix = "" if line is not None else f"{place}."
    required = names[REQUIRED[fmt]][0]
    if not any(key in obj for key in names[REQUIRED[fmt]]):
        log.add(
            line,
            f"missing required key {required!r}",
            field=prefix + required,
            hint=f"a {fmt} row holds {', '.join(k[0] for k in names.values() if k)}",
        )
        return None
    values: dict[str, Any] = {}
    used: set[str] = set()
    for name, keys in names.items():
        key = next((k for k in keys if k in obj), None)
        if key is None:
            continue
        used.add(key)
        values[name] = _check(name, obj[key], key, line, prefix, log)
    case_id, id_key = _case_id(obj, line, place, prefix, log)
    used.add(id_key)
    metadata, extra = _kept(obj, used)
    if len(log.problems) > before:
        return None
    answer = values.get("answer")
    contexts = _contexts(
        values.get("contexts"), values.get("context_ids"), "retrieved", line, prefix, log
    )
    reference_contexts = _contexts(
        values.get("reference_contexts"),
        values.get("reference_ids"),
        "reference",
        line,
        prefix,
        log,
    )
    if len(log.problems) > before:
        return None
    refs = values.get("references")
    references = tuple(r for r in ([refs] if isinstance(refs, str) else refs or ()) if r.strip())
    return TextCase(
        case_id=case_id,
        question=values.get("question"),
        answer=answer if answer and answer.strip() else None,
        contexts=contexts,
        references=references,
        reference_contexts=reference_contexts,
        metadata=metadata,
        extra=extra,
        line=line,
        where=place,
        gaps={} if answer and answer.strip() else {"answer": "no response"},
    )


def _check(name: str, value: Any, key: str, line: int | None, prefix: str, log: ProblemLog) -> Any:
    """``value`` when it has the type ``name`` takes (``None`` kept), else log and ``None``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if name in ("question", "answer"):
        if isinstance(value, str):
            return value
        log.add(
            line,
            f"{key} must be text, got {_show(value)}",
            field=prefix + key,
            hint=f'write "{key}": "..."',
        )
        return None
    if name == "references":
        if isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return value
        log.add(
            line,
            f"{key} must be text (or a list of texts), got {_show(value)}",
            field=prefix + key,
            hint=f'write "{key}": "the expected answer"',
        )
        return None
    if isinstance(value, list) and all(_is_item(v, name) for v in value):
        return [str(v) if isinstance(v, int) else v for v in value]
    kind = "ids" if name.endswith("ids") else "texts"
    log.add(
        line,
        f"{key} must be a list of {kind}, got {_show(value)}",
        field=prefix + key,
        hint=f'write "{key}": ["...", "..."]',
    )
    return None


def _is_item(value: Any, name: str) -> bool:
    if name.endswith("ids"):
        return (isinstance(value, str) and bool(value)) or (
            isinstance(value, int) and not isinstance(value, bool)
        )
    return isinstance(value, str)


def _contexts(
    texts: list[str] | None,
    ids: list[str] | None,
    what: str,
    line: int | None,
    prefix: str,
    log: ProblemLog,
) -> tuple[Context, ...]:
    if texts is not None and ids is not None and len(texts) != len(ids):
        log.add(
            line,
            f"{len(ids)} {what} context ids for {len(texts)} {what} contexts",
            field=f"{prefix}{what}_context_ids",
            hint="give one id per context, in the same order",
        )
        return ()
    if texts is None and ids is None:
        return ()
    count = len(texts if texts is not None else ids or [])
    return tuple(
        Context(text=None if texts is None else texts[i], doc_id=None if ids is None else ids[i])
        for i in range(count)
    )


def _case_id(
    obj: Mapping[str, Any], line: int | None, place: str, prefix: str, log: ProblemLog
) -> tuple[str, str]:
    key = next((k for k in ID_KEYS if obj.get(k) is not None), "")
    if not key:
        return place, ""
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, str | int) or str(value).strip() == "":
        log.add(
            line,
            f"{key} must be text or an integer, got {_show(value)}",
            field=prefix + key,
            hint=f'write "{key}": "case-1"',
        )
        return place, key
    return str(value), key


def _kept(obj: Mapping[str, Any], used: set[str]) -> tuple[dict[str, str], dict[str, Any]]:
    """Unknown fields: scalars as metadata text, anything else kept as it is."""
    metadata: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in used or value is None:
            continue
        if isinstance(value, bool):
            metadata[key] = str(value).lower()
        elif isinstance(value, str | int | float):
            metadata[key] = str(value)
        else:
            extra[key] = value
    return metadata, extra


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
