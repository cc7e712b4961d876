"""JSONL qrels (seed 000): one query per line.

``{"query_id": "q01", "query": "...", "relevant": {"doc-a": 2, "doc-b": 0}}`` plus
optional metadata keys (``language``, ``query_class``, ``source``...) and
``"no_answer": true``. See :mod:`assay.judgments._records` for every key.
"""

from __future__ import annotations

import json
from collections.abc import Collection

import pandas as pd

from assay.errors import ProblemLog
from assay.judgments._build import Collector
from assay.judgments._records import parse_record
from assay.textio import split_lines

MARK_HINT = 'set "no_answer": true'


def parse_jsonl(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse and check JSONL qrels text; returns (queries, qrels) frames."""
    out = Collector(log, corpus_ids)
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        log.add(None, "empty file: no queries", hint="write one JSON object per line")
        return out.frames()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            log.add(number, "blank line", hint="remove it: every line must hold one query")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            log.add(
                number,
                f"malformed JSON: {exc.msg} at column {exc.colno}",
                hint="each line must be one complete JSON object",
            )
            continue
        parse_record(obj, number, out)
    out.check_positives(MARK_HINT)
    return out.frames()
