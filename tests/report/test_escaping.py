"""Markdown cells escape '|'; CSV cells that a spreadsheet would run as formulas are neutralised."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.io.csvout import csv_cell
from assay.report.escape import md_cell


@pytest.mark.parametrize(
    ("value", "safe"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+cmd", "'+1+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("-0.25", "-0.25"),
        ("plain", "plain"),
        (-0.5, -0.5),
        (3, 3),
    ],
)
def test_csv_cell(value: object, safe: object) -> None:
    assert csv_cell(value) == safe


def test_md_cell() -> None:
    assert md_cell("a|b\nc") == "a\\|b c"


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


def test_reports_escape_hostile_names(tmp_path: Path, capsys) -> None:
    q = tmp_path / "q.jsonl"
    q.write_text(
        json.dumps({"query_id": "=cmd", "query": "@x", "relevant": {"d": 1}, "team": "a|b"})
        + "\n"
        + json.dumps({"query_id": "q2", "query": "y", "relevant": {"d": 1}, "team": "c"})
        + "\n"
    )
    run = tmp_path / "r.trec"
    run.write_text("=cmd Q0 d 1 1.0 x\nq2 Q0 d 1 1.0 x\n")
    argv = ["evaluate", str(q), str(run), "--no-record", "--by", "team"]
    assert _run([*argv, "-f", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert any("'=cmd" in row for row in rows) and any("'@x" in row for row in rows)
    assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)
    md = tmp_path / "r.md"
    assert _run([*argv, "-o", str(md)]) == 0
    assert "| a\\|b |" in md.read_text()
