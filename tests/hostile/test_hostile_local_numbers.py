"""Numbers in a system's configuration are finite and in range, and the circuit breaker
counts attempts: huge retry counts against a closed port give up in bounded time."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from assay.cli.app import main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def project(tmp_path: Path, monkeypatch) -> Path:
    rows = [{"query_id": f"q{i}", "query": f"q {i}", "relevant": {"d": 1}} for i in range(20)]
    (tmp_path / "qrels.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _run(project: Path, table: str, capsys, *extra: str) -> tuple[int, str]:
    (project / "assay.toml").write_text(
        f'[systems.h]\ntype = "http"\nurl = "http://127.0.0.1:{_closed_port()}/s?q={{query}}"\n'
        + table
    )
    with pytest.raises(SystemExit) as exc:
        main(["run", "qrels.jsonl", "-s", "h", "-o", "h.trec", "--no-progress", *extra])
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("timeout = inf", "timeout"),
        ("timeout = nan", "timeout"),
        ("timeout = 1e300", "timeout"),
        ("backoff = inf", "backoff"),
        ("retries = 1000000000", "retries: must be less than or equal to 100, got 1000000000"),
        ("retries = -1", "retries"),
    ],
)
def test_bad_numbers_are_refused_when_the_config_is_read(
    project: Path, capsys, line: str, needle: str
) -> None:
    code, text = _run(project, line + "\n", capsys)
    assert code == 2, text
    assert needle in text and "unexpected" not in text and "OverflowError" not in text, text
    assert not (project / "h.trec").exists()


def test_retries_option_has_a_stated_maximum(project: Path, capsys) -> None:
    code, text = _run(project, "", capsys, "--retries", "1000000000")
    assert code == 2 and "--retries must be a whole number from 0 to 100" in text, text


def test_the_breaker_counts_attempts_not_only_queries(project: Path, capsys) -> None:
    """100 retries each, 20 queries, a closed port: stopped after 5 x 3 failed attempts."""
    code, text = _run(project, "retries = 100\nbackoff = 0\n", capsys)
    assert code == 1, text
    assert "15 failed attempts in a row" in text, text
    assert not (project / "h.trec").exists()
