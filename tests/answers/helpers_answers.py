"""Helpers for the answers tests: run the CLI, write case files."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from assay.cli.app import main

BASE: dict[str, Any] = {
    "case_id": "c01",
    "question": "how many people go hungry",
    "language": "en",
    "expected_status": "answered",
    "expected_ids": ["FS_UNDERNOURISH_PCT"],
    "retrieved_ids": ["FS_UNDERNOURISH_PCT", "PV_HEADCOUNT_NPL_PCT"],
    "response": {
        "status": "answered",
        "answer": "In 2022, 7.6% of the population was undernourished.",
        "claims": [
            {"text": "7.6% were undernourished in 2022.", "citations": ["FS_UNDERNOURISH_PCT"]}
        ],
    },
    "support": {"0": {"judgments": {"FS_UNDERNOURISH_PCT": True}, "judged_by": "person"}},
    "expected_values": [{"value": 7.63, "unit": "%"}],
}


def case(**changes: Any) -> dict[str, Any]:
    """A copy of the valid base case with top-level keys replaced (None deletes)."""
    out = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def write_cases(path: Path, cases: list[dict[str, Any] | str]) -> Path:
    """Write cases (dicts as JSON, strings verbatim) one per line."""
    lines = [c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for c in cases]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``assay`` in-process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    captured = capsys.readouterr()
    return int(exc.value.code or 0), captured.out, captured.err
