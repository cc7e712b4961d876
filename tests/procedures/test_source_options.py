"""``SourceOptions``: the one model of a live system, the same through the library and the CLI.

The library given ``source=SourceOptions(...)`` builds and runs the system the
options name and answers what ``assay <command> --system ...`` answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import assay
from assay import SourceOptions, UsageError

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "examples" / "statistics" / "questions.csv"
CONFIG = ROOT / "examples" / "statistics" / "assay.toml"
STAMPS = {"created_at", "environment", "assay_version"}


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "ASSAY_RECORD": "0"},
        timeout=300,
        check=False,
    )


def _content(data: Any) -> Any:
    """``data`` without what is stamped at write time or timed (``latency_ms``)."""
    if isinstance(data, dict):
        return {k: _content(v) for k, v in data.items() if k not in {*STAMPS, "latency_ms"}}
    if isinstance(data, list):
        return [_content(v) for v in data]
    return data


@pytest.mark.parametrize(
    ("field", "value"),
    [("retries", -1), ("max_consecutive_failures", -1), ("max_failed", -2), ("executor", "x")],
)
def test_bounds_are_usage_errors_naming_the_parameter(field: str, value: Any) -> None:
    with pytest.raises(UsageError) as caught:
        SourceOptions(**{field: value})
    assert caught.value.parameter == field
    assert f"`{field}`" in str(caught.value)


def test_unknown_fields_are_refused_and_every_field_is_described() -> None:
    with pytest.raises(ValidationError, match="extra"):
        SourceOptions(sytem="keyword")  # type: ignore[call-arg]
    assert all(f.description for f in SourceOptions.model_fields.values())


def test_a_run_and_a_system_are_not_both_given() -> None:
    source = SourceOptions(system="keyword", config=CONFIG)
    with pytest.raises(UsageError, match="not both"):
        assay.evaluate(QUESTIONS, QUESTIONS, source=source)
    with pytest.raises(UsageError, match="RUN file to score"):
        assay.evaluate(QUESTIONS, source=SourceOptions())
    with pytest.raises(UsageError, match="either as a keyword or in `source`"):
        assay.evaluate(
            QUESTIONS, options=assay.ScoringOptions(retries=1, cache=None), source=source
        )


def test_library_and_cli_give_the_same_evaluation_and_comparison(tmp_path: Path) -> None:
    common = ["--config", str(CONFIG), "--no-cache", "-m", "nDCG@10", "-m", "RR", "-f", "json"]
    proc = _cli("evaluate", str(QUESTIONS), "-s", "keyword", *common, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    source = SourceOptions(system="keyword", config=CONFIG, no_cache=True)
    lib = assay.evaluate(QUESTIONS, metrics=["nDCG@10", "RR"], source=source)
    assert _content(json.loads(proc.stdout)) == _content(json.loads(lib.to_json()))

    both = ["-s", "keyword", "-s", "keyword-names-only"]
    proc = _cli("compare", str(QUESTIONS), *both, *common, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lib = assay.compare(
        QUESTIONS,
        [],
        ["nDCG@10", "RR"],
        systems=["keyword", "keyword-names-only"],
        source=SourceOptions(config=CONFIG, no_cache=True),
    )
    assert _content(json.loads(proc.stdout)) == _content(json.loads(lib.to_json()))


def test_the_cache_of_the_source_is_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    source = SourceOptions(system="keyword", config=CONFIG, cache_dir=cache, executor="local")
    first = assay.evaluate(QUESTIONS, metrics=["nDCG@10"], source=source)
    again = assay.evaluate(QUESTIONS, metrics=["nDCG@10"], source=source)
    assert len(list(cache.glob("*.json"))) == 1
    assert again.aggregate == first.aggregate
