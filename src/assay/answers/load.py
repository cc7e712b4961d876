"""Read and validate a cases file (JSONL, one reviewed case per line).

Keys of a line::

    case_id, question, expected_status, retrieved_ids, response   required
    support          required when the response makes claims:
                     {"0": {"judgments": {"DOC": true}, "judged_by": "person"}}
                     or seed 000's short form {"0": {"DOC": true}}
    query_id, expected_ids, expected_values, judged_by, metadata  optional
    system           optional: the system that answered (``module:function``)
    any other key with a text/number value                         metadata

Every problem is collected with file, 1-based physical line and field, and
raised as one :class:`~assay.core.errors.InputError` (exit code 2).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assay.answers.models import (
    JUDGES,
    STATUSES,
    AnswerCase,
    CaseSet,
    ClaimSupport,
    ExpectedValue,
    GroundedResponse,
    is_known_judge,
)
from assay.core.errors import InputError, Problem, ProblemLog, collecting
from assay.core.hashing import ContentHash
from assay.io.textio import decode, json_lines, read_bytes

REQUIRED = ("case_id", "question", "expected_status", "retrieved_ids", "response")
KNOWN = (
    *REQUIRED,
    "query_id",
    "system",
    "support",
    "expected_ids",
    "expected_values",
    "judged_by",
    "metadata",
)


def load_cases(path: str | Path) -> CaseSet:
    """Read and validate the cases file at ``path``.

    Raises :class:`InputError` listing every problem found (up to
    :data:`assay.core.errors.MAX_PROBLEMS`), each with line, field and a hint.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])

    with collecting(p.name) as log:
        data = read_bytes(p, log)
        text = None if data is None else decode(data, log)
        cases, raws = ([], []) if text is None else parse_cases(text, log)
    return CaseSet(tuple(cases), path=str(p), name=p.stem, version=cases_version(raws))


def parse_cases(text: str, log: ProblemLog) -> tuple[list[AnswerCase], list[dict[str, Any]]]:
    """Parse cases JSONL text, logging problems; returns cases and raw objects."""

    cases: list[AnswerCase] = []
    raws: list[dict[str, Any]] = []
    first_seen: dict[str, int] = {}
    for number, obj in json_lines(text, log, what="case"):
        case = _parse_case(obj, number, log)
        # ids are tracked for every line that names one, valid or not, so a
        # duplicate of an invalid line is still reported
        case_id = obj.get("case_id")
        if isinstance(case_id, str) and case_id.strip():
            if case_id in first_seen:
                log.add(
                    number,
                    f"duplicate case_id {case_id!r} (first seen on line {first_seen[case_id]})",
                    field="case_id",
                    hint="give every case its own id",
                )
                continue
            first_seen[case_id] = number
        if case is None:
            continue
        cases.append(case)
        raws.append(obj)
    return cases, raws


def cases_version(raws: list[dict[str, Any]]) -> str:
    """Hash of the cases' content, independent of key order, spacing and line order."""

    h = ContentHash()
    blobs = sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in raws)
    for blob in blobs:
        h.update(blob)
        h.update(b"\x1e")
    return h.version()


# ----------------------------------------------------------------- one line
def _parse_case(obj: dict[str, Any], n: int, log: ProblemLog) -> AnswerCase | None:
    before = len(log.problems)
    for key in REQUIRED:
        if key not in obj:
            log.add(n, f"missing required key {key!r}", field=key, hint=f"add {key!r} to the case")
    if len(log.problems) > before:
        return None
    case_id = _text(obj, "case_id", n, log)
    question = _text(obj, "question", n, log)
    query_id = _text(obj, "query_id", n, log) if obj.get("query_id") is not None else None
    system = _text(obj, "system", n, log) if obj.get("system") is not None else None
    expected_status = obj["expected_status"]
    if expected_status not in STATUSES:
        log.add(
            n,
            f"unknown status {expected_status!r}",
            field="expected_status",
            hint="use 'answered' or 'declined'",
        )
    retrieved = _ids(obj, "retrieved_ids", n, log)
    expected_ids = (
        _ids(obj, "expected_ids", n, log) if obj.get("expected_ids") is not None else None
    )
    response = _response(obj["response"], n, log)
    values = _expected_values(obj.get("expected_values"), n, log)
    metadata = _metadata(obj, n, log)
    case_judge = obj.get("judged_by")
    if case_judge is not None and not is_known_judge(case_judge):
        log.add(
            n,
            f"unknown judged_by {case_judge!r}",
            field="judged_by",
            hint=f"use one of {', '.join(JUDGES)}",
        )
    support: tuple[ClaimSupport, ...] = ()
    if response is not None:
        support = _support(obj.get("support"), response, case_judge, n, log)
    if len(log.problems) > before:
        return None
    return AnswerCase(
        case_id=case_id,
        question=question,
        expected_status=expected_status,
        retrieved_ids=tuple(retrieved),
        response=response,
        support=support,
        query_id=query_id,
        system=system,
        expected_ids=None if expected_ids is None else tuple(expected_ids),
        expected_values=tuple(values),
        metadata=metadata,
        line=n,
    )


def _text(obj: dict[str, Any], key: str, n: int, log: ProblemLog) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        log.add(
            n,
            f"{key} must be non-empty text, got {value!r}",
            field=key,
            hint=f'write "{key}": "..."',
        )
        return ""
    return value


def _ids(obj: dict[str, Any], key: str, n: int, log: ProblemLog) -> list[str]:
    value = obj.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        log.add(
            n,
            f"{key} must be a list of document ids (text)",
            field=key,
            hint=f'write "{key}": ["DOC1", "DOC2"]',
        )
        return []
    seen: set[str] = set()
    for doc in value:
        if doc in seen:
            log.add(n, f"duplicate id {doc!r} in {key}", field=key, hint="list each id once")
        seen.add(doc)
    return list(value)


def _response(value: Any, n: int, log: ProblemLog) -> GroundedResponse | None:
    from pydantic import ValidationError

    if not isinstance(value, dict):
        log.add(
            n,
            "response must be an object with status, answer and claims",
            field="response",
            hint='write "response": {"status": "answered", "claims": []}',
        )
        return None
    try:
        return GroundedResponse.model_validate(value)
    except ValidationError as exc:
        for err in exc.errors():
            loc = "response" + "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]
            )
            if err["loc"] == ("status",) and "status" in value:
                log.add(
                    n,
                    f"unknown status {value['status']!r}",
                    field=loc,
                    hint="use 'answered' or 'declined'",
                )
            else:
                log.add(
                    n,
                    err["msg"].lower(),
                    field=loc,
                    hint="a response holds status, answer and claims of {text, citations}",
                )
        return None


def _expected_values(value: Any, n: int, log: ProblemLog) -> list[ExpectedValue]:
    if value is None:
        return []
    hint = 'write "expected_values": [{"value": 7.6, "unit": "%", "tolerance": 0.05}]'
    if not isinstance(value, list):
        log.add(n, "expected_values must be a list", field="expected_values", hint=hint)
        return []
    out: list[ExpectedValue] = []
    for i, item in enumerate(value):
        where = f"expected_values[{i}]"
        if isinstance(item, int | float) and not isinstance(item, bool):
            item = {"value": item}
        if not isinstance(item, dict):
            log.add(
                n,
                f"expected value must be a number or an object, got {item!r}",
                field=where,
                hint=hint,
            )
            continue
        bad = [
            k
            for k in ("value", "tolerance")
            if k in item
            and (
                isinstance(item[k], bool)
                or not isinstance(item[k], int | float)
                or not math.isfinite(item[k])
            )
        ]
        if "value" not in item or bad:
            log.add(
                n,
                f"{'value' if 'value' not in item else bad[0]} must be a number",
                field=where,
                hint=hint,
            )
            continue
        try:
            out.append(ExpectedValue.model_validate(item))
        except ValueError as exc:
            msg = exc.errors()[0]["msg"].lower() if hasattr(exc, "errors") else str(exc)
            log.add(n, msg, field=where, hint=hint)
    return out


def _metadata(obj: dict[str, Any], n: int, log: ProblemLog) -> dict[str, str]:
    meta: dict[str, str] = {}
    explicit = obj.get("metadata")
    if explicit is not None and not isinstance(explicit, dict):
        log.add(
            n,
            "metadata must be an object",
            field="metadata",
            hint='write "metadata": {"language": "en"}',
        )
        explicit = None
    items = [(k, v) for k, v in obj.items() if k not in KNOWN]
    items += list((explicit or {}).items())
    for key, value in items:
        if value is None:
            continue
        if isinstance(value, dict | list):
            log.add(
                n,
                f"unknown key {key!r} (metadata values must be text)",
                field=key,
                hint=f"check the spelling; known keys: {', '.join(KNOWN)}",
            )
            continue
        meta[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return meta


def _support(
    value: Any, response: GroundedResponse, case_judge: str | None, n: int, log: ProblemLog
) -> tuple[ClaimSupport, ...]:
    """The support judgments of a response's claims, each checked against the claim's
    citations; what is wrong is logged on line ``n``."""
    claims = response.claims
    if value is None:
        value = {}
    if not isinstance(value, dict):
        log.add(
            n,
            "support must be an object keyed by claim index",
            field="support",
            hint='write "support": {"0": {"judgments": {"DOC": true}, "judged_by": "person"}}',
        )
        return ()
    _check_support_keys(value, len(claims), n, log)
    out: list[ClaimSupport] = []
    for index, claim in enumerate(claims):
        where = f"support.{index}"
        entry = value.get(str(index))
        if entry is None:
            log.add(
                n,
                f"no support judgment for claim {index}",
                field=where,
                hint="judge every citation of every claim true or false",
            )
            continue
        judgments, judge = _support_entry(entry, case_judge, where, n, log)
        if not isinstance(judgments, dict):
            log.add(
                n,
                f"support for claim {index} must map each citation to true/false",
                field=where,
                hint='write {"DOC": true}',
            )
            continue
        if _verdicts_ok(judgments, claim.citations, index, where, n, log):
            out.append(ClaimSupport(dict(judgments), judge))
    return tuple(out)


def _check_support_keys(value: dict[Any, Any], n_claims: int, n: int, log: ProblemLog) -> None:
    """Log every support key that is not the index of one of the ``n_claims`` claims."""
    for key in value:
        if isinstance(key, str) and key.isdigit() and int(key) < n_claims:
            continue
        if key.isdigit():
            message = f"support for claim {key}, but the response has {n_claims} claim(s)"
        else:
            message = f"support key {key!r} is not a claim index"
        log.add(
            n,
            message,
            field=f"support.{key}",
            hint="key support by the 0-based index of each claim",
        )


def _support_entry(
    entry: Any, case_judge: str | None, where: str, n: int, log: ProblemLog
) -> tuple[Any, str | None]:
    """``(judgments, judge)`` of one claim's support entry: a bare citation -> verdict map,
    or an object with ``judgments``, ``judged_by`` and ``note``."""
    if not (isinstance(entry, dict) and isinstance(entry.get("judgments"), dict)):
        return entry, case_judge
    extra = [k for k in entry if k not in ("judgments", "judged_by", "note")]
    if extra:
        log.add(
            n,
            f"unknown key {extra[0]!r} in support",
            field=where,
            hint="a support entry holds judgments, judged_by and note",
        )
    judge = entry.get("judged_by", case_judge)
    if judge is not None and not is_known_judge(judge):
        log.add(
            n,
            f"unknown judged_by {judge!r}",
            field=f"{where}.judged_by",
            hint=f"use one of {', '.join(JUDGES)}",
        )
    return entry["judgments"], judge


def _verdicts_ok(
    entry: dict[str, Any], citations: Any, index: int, where: str, n: int, log: ProblemLog
) -> bool:
    """True when ``entry`` judges exactly the claim's ``citations``, each true or false."""
    ok = True
    for doc in citations:
        if doc not in entry:
            ok = False
            log.add(
                n,
                f"claim {index} cites {doc!r} but support has no judgment for it",
                field=where,
                hint="judge exactly the claim's citations",
            )
    for doc, verdict in entry.items():
        if doc not in citations:
            ok = False
            log.add(
                n,
                f"support judges {doc!r}, which claim {index} does not cite",
                field=where,
                hint="judge exactly the claim's citations",
            )
        elif verdict is None:
            ok = False
            log.add(
                n,
                f"claim {index}, citation {doc!r}: not yet judged",
                field=where,
                hint="a reviewer sets it to true (supports the claim) or false",
            )
        elif not isinstance(verdict, bool):
            ok = False
            log.add(
                n,
                f"claim {index}, citation {doc!r}: judgment must be true or false, got {verdict!r}",
                field=where,
                hint="use JSON true or false",
            )
    return ok
