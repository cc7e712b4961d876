"""JSON list of queries (seed 001), with English or French keys.

``[{"requête": "...", "pertinents": ["doc-a"], "non_pertinents": ["doc-z"]}, ...]``.
Relevant docs get grade 1 (or the grade given in a ``{doc_id: grade}`` object),
known non-relevant docs grade 0. See :mod:`assay.judgments._records` for every key.

Ids: when an object has no ``query_id`` / ``id`` / ``_id`` key, its id is ``q``
followed by its 1-based position in the list (``q1``, ``q2``...); an explicit id
that collides with a generated one is reported as a duplicate.
Errors name the line where the offending object starts.
"""

from __future__ import annotations

import json
from collections.abc import Collection

import pandas as pd

from assay.core.errors import ProblemLog
from assay.io.safejson import JSONError
from assay.io.textio import parse_json_at
from assay.judgments._build import Collector
from assay.judgments._records import parse_record

MARK_HINT = 'set "no_answer": true'
_WS = " \t\r\n"


def parse_json_list(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse and check a JSON array of query objects; returns (queries, qrels) frames."""
    out = Collector(log, corpus_ids)
    _line = _Lines(text)
    pos = _skip(text, 0)
    if pos >= len(text):
        log.add(None, "empty file: no queries", hint="write a JSON list of query objects")
        return out.frames()
    if text[pos] != "[":
        log.add(
            _line(text, pos),
            "expected a JSON list '[' of query objects",
            hint='write [{"query": ..., "relevant": [...]}, ...]',
        )
        return out.frames()
    pos = _skip(text, pos + 1)
    position = 0
    if pos < len(text) and text[pos] == "]":
        log.add(_line(text, pos), "empty list: no queries", hint="add query objects")
        return out.frames()
    while True:
        try:
            obj, end = parse_json_at(text, pos)
        except json.JSONDecodeError as exc:
            line = exc.lineno
            if isinstance(exc, JSONError):  # found in the object alone: count from its start
                line = _line(text, pos) + (exc.lineno or 1) - 1
            log.add(
                line,
                f"malformed JSON: {exc.msg}" + (f" at column {exc.colno}" if exc.colno else ""),
                hint="fix the JSON syntax (a validator or `python -m json.tool` helps)",
            )
            return out.frames()
        except ValueError as exc:  # a 5,000-digit integer, and the like (assay.io.safejson)
            log.add(_line(text, pos), f"malformed JSON: {str(exc)[:160]}", hint="fix the value")
            return out.frames()
        position += 1
        parse_record(obj, _line(text, pos), out, default_id=f"q{position}")
        pos = _skip(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
            continue
        if pos < len(text) and text[pos] == "]":
            if _skip(text, pos + 1) < len(text):
                log.add(
                    _line(text, _skip(text, pos + 1)),
                    "text after the end of the list",
                    hint="remove it",
                )
            break
        log.add(
            _line(text, min(pos, len(text) - 1)),
            "malformed JSON: expected ',' or ']'",
            hint="separate objects with commas and close the list with ]",
        )
        return out.frames()
    out.check_positives(MARK_HINT)
    return out.frames()


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


class _Lines:
    """1-based line of a position, counted incrementally for increasing positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def __call__(self, text: str, pos: int) -> int:
        if pos < self.pos:
            return text.count("\n", 0, pos) + 1
        self.line += text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line
