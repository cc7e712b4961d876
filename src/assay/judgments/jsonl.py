"""JSONL qrels (seed 000): one query per line.

``{"query_id": "q01", "query": "...", "relevant": {"doc-a": 2, "doc-b": 0}}`` plus
optional metadata keys (``language``, ``query_class``, ``source``...) and
``"no_answer": true``. See :mod:`assay.judgments._records` for every key.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from assay.core.errors import ProblemLog
from assay.io.textio import json_lines
from assay.judgments._build import Collector
from assay.judgments._records import parse_record

MARK_HINT = 'set "no_answer": true'


def parse_jsonl(
    text: str, log: ProblemLog, corpus_ids: Collection[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse and check JSONL qrels text; returns (queries, qrels) frames."""
    out = Collector(log, corpus_ids)
    for number, obj in json_lines(text, log, what="query", plural="queries"):
        parse_record(obj, number, out)
    out.check_positives(MARK_HINT)
    return out.frames()
