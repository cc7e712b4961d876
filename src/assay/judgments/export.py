"""A judgment set written back as JSONL qrels (seed 000), the format every command reads."""

from __future__ import annotations

import json
from typing import Any


def to_jsonl(js: Any) -> str:
    """One line per query: id, text, ``relevant`` grades, metadata; no-answer marked."""
    qrels = js.qrels_dict()
    lines = []
    for q in js:
        row: dict[str, Any] = {"query_id": q.query_id, "query": q.text}
        row["relevant"] = qrels.get(q.query_id, {})
        if q.no_answer:
            row["no_answer"] = True
        row.update(q.metadata)
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
