"""OpenTelemetry traces (OTLP JSON) with OpenInference attributes, one case per trace.

The file holds one ``ExportTraceServiceRequest`` (``{"resourceSpans": [...]}``),
or one per line as the OTLP file exporter writes them. Spans are grouped by
``traceId``; in each trace:

* the question is the root span's ``input.value`` (else the retriever's);
* the run is the retriever span's documents (``openinference.span.kind`` =
  ``RETRIEVER``): ``retrieval.documents.N.document.id``, ``.content`` and
  ``.score``, in the order of ``N`` (the last retriever span to end when there are
  several);
* the answer is the LLM span's (``LLM``) last ``llm.output_messages.N.message.content``,
  else its ``output.value`` (the last LLM span to end).

A trace without an LLM span has no answer and one without a retriever span no
contexts: the ledger says so for every measure they leave it out of. Each
problem names the line and the span id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assay.answers.text import Context, TextCase
from assay.core.errors import ProblemLog
from assay.io.textio import json_lines, parse_json, read_text

_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(id|content|score)$")
_OUT = re.compile(r"^llm\.output_messages\.(\d+)\.message\.content$")
KIND = "openinference.span.kind"


def read_traces(p: Path, log: ProblemLog) -> tuple[list[TextCase], list[dict[str, Any]]]:
    """The cases of the traces in ``p`` and the raw spans (for the content version)."""
    traces: dict[str, list[tuple[int | None, dict[str, Any], dict[str, str]]]] = {}
    raws: list[dict[str, Any]] = []
    for line, request in _requests(p, log):
        for resource, span in _spans(request, line, log):
            trace = span.get("traceId")
            if not isinstance(trace, str) or not trace or not isinstance(span.get("spanId"), str):
                log.add(
                    line,
                    f"span {span.get('spanId')!r} has no traceId/spanId text",
                    field="traceId",
                    hint="OTLP JSON writes ids as hex text",
                )
                continue
            traces.setdefault(trace, []).append((line, span, resource))
            raws.append(span)
    cases = [c for trace, spans in traces.items() if (c := _case(trace, spans, log)) is not None]
    return cases, raws


def _requests(p: Path, log: ProblemLog) -> list[tuple[int | None, dict[str, Any]]]:

    text = read_text(p, log)
    if text is None:
        return []
    import json

    try:  # one export, perhaps pretty-printed; else one export per line
        whole = parse_json(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [(None, whole)]
    return list(json_lines(text, log, what="trace export"))


def _spans(request: dict[str, Any], line: int | None, log: ProblemLog) -> list[tuple[dict, dict]]:
    out: list[tuple[dict, dict]] = []
    groups = request.get("resourceSpans")
    if not isinstance(groups, list):
        log.add(
            line,
            "no resourceSpans list",
            field="resourceSpans",
            hint="an OTLP JSON trace export holds resourceSpans",
        )
        return out
    for group in groups:
        resource = _attributes((group.get("resource") or {}).get("attributes"))
        for scope in group.get("scopeSpans") or []:
            for span in scope.get("spans") or []:
                if isinstance(span, dict):
                    out.append((_text_only(resource), span))
    return out


def _case(
    trace: str, spans: list[tuple[int | None, dict, dict]], log: ProblemLog
) -> TextCase | None:
    before = len(log.problems)
    ids = {span["spanId"] for _, span, _ in spans}
    root = next((s for _, s, _ in spans if s.get("parentSpanId") not in ids), spans[0][1])
    attrs = {span["spanId"]: _attributes(span.get("attributes")) for _, span, _ in spans}
    retriever = _last(spans, attrs, "RETRIEVER")
    llm = _last(spans, attrs, "LLM")
    line = spans[0][0]
    contexts = (
        () if retriever is None else _documents(retriever, attrs[retriever["spanId"]], line, log)
    )
    answer = None if llm is None else _llm_output(attrs[llm["spanId"]])
    question = attrs[root["spanId"]].get("input.value")
    if not isinstance(question, str) and retriever is not None:
        question = attrs[retriever["spanId"]].get("input.value")
    gaps = {}
    if llm is None:
        gaps["answer"] = "no LLM span"
    elif not answer:
        gaps["answer"] = f"LLM span {llm['spanId']} has no output"
    if retriever is None:
        gaps["contexts"] = "no retriever span"
    if len(log.problems) > before:
        return None
    metadata = {"trace_id": trace, "root_span": str(root.get("name", ""))} | spans[0][2]
    return TextCase(
        case_id=trace,
        question=question if isinstance(question, str) else None,
        answer=answer or None,
        contexts=contexts,
        metadata=metadata,
        line=line,
        where=f"trace {trace}",
        gaps=gaps,
    )


def _last(spans: list[tuple[Any, dict, dict]], attrs: dict[str, dict], kind: str) -> dict | None:
    """The span of ``kind`` that ends last (the last one listed on a tie)."""
    found = [s for _, s, _ in spans if attrs[s["spanId"]].get(KIND) == kind]
    return max(found, key=lambda s: int(s.get("endTimeUnixNano") or 0), default=None)


def _documents(
    span: dict, attrs: dict[str, Any], line: int | None, log: ProblemLog
) -> tuple[Context, ...]:
    docs: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if m := _DOC.match(key):
            docs.setdefault(int(m.group(1)), {})[m.group(2)] = (key, value)
    where = f"span {span['spanId']}"
    if sorted(docs) != list(range(len(docs))):
        log.add(
            line,
            f"{where}: retrieval documents are numbered {sorted(docs)}, not 0..{len(docs) - 1}",
            field="retrieval.documents",
            hint="number the documents from 0 without gaps",
        )
        return ()
    out = []
    for n in range(len(docs)):
        doc = docs[n]
        key, score = doc.get("score", ("", None))
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
            log.add(
                line,
                f"{where}: document score must be a number, got {score!r}",
                field=key,
                hint="write the score as doubleValue",
            )
            continue
        text, doc_id = doc.get("content", ("", None))[1], doc.get("id", ("", None))[1]
        if text is None and doc_id is None:
            log.add(
                line,
                f"{where}: document {n} has neither id nor content",
                field=f"retrieval.documents.{n}",
                hint="record document.id or document.content",
            )
            continue
        out.append(
            Context(_opt_text(text), _opt_text(doc_id), None if score is None else float(score))
        )
    return tuple(out)


def _llm_output(attrs: dict[str, Any]) -> str | None:
    messages = sorted((int(m.group(1)), v) for k, v in attrs.items() if (m := _OUT.match(k)))
    if messages and isinstance(messages[-1][1], str):
        return messages[-1][1]
    value = attrs.get("output.value")
    return value if isinstance(value, str) else None


def _attributes(items: Any) -> dict[str, Any]:
    """OTLP ``[{"key": k, "value": AnyValue}]`` as ``{k: python value}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"))
    return out


def _value(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return value["intValue"]
    if "doubleValue" in value:
        raw = value["doubleValue"]
        return float(raw) if isinstance(raw, int | float | str) and _floaty(raw) else raw
    if "boolValue" in value:
        return value["boolValue"]
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    return None


def _floaty(raw: Any) -> bool:
    try:
        float(raw)
    except (TypeError, ValueError):
        return False
    return not isinstance(raw, bool)


def _opt_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _text_only(attrs: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in attrs.items() if isinstance(v, str | int | float)}
