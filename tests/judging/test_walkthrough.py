"""The walkthrough of docs/workflows/judging.md: run, pool, judge (HTTP), export, evaluate."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from assay.judging.serve import prepare

CLI = [sys.executable, "-c", "from assay.cli import main; main()"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_pool_judge_export_evaluate(examples_dir: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    e = examples_dir / "statistics"
    for system in ("keyword", "bm25"):
        _cli(
            "run",
            str(e / "questions.csv"),
            "--system",
            system,
            "--config",
            str(e / "assay.toml"),
            "-o",
            f"{system}.trec",
            "--no-cache",
            cwd=tmp_path,
        )
    _cli(
        "judge",
        "pool",
        str(e / "questions.csv"),
        "keyword.trec",
        "bm25.trec",
        "--depth",
        "3",
        "--strategy",
        "delta",
        "-o",
        "pool.jsonl",
        cwd=tmp_path,
    )
    pool = [json.loads(x) for x in (tmp_path / "pool.jsonl").read_text().splitlines()]
    assert pool and all(p["notes"]["language"] for p in pool)
    app, links = prepare(
        tmp_path / "pool.jsonl",
        str(tmp_path / "judging.db"),
        assessors=["alice", "bob"],
        overlap=2,
        corpus=e / "catalog.csv",
        id_field="idno",
        base_url="http://testserver",
    )
    for name, grade in (("alice", "1"), ("bob", "1")):
        c = TestClient(app)
        c.get(links[name].removeprefix("http://testserver"))
        html = c.get("/").text
        assert "Unemployment rate" in html or "definition_long" in html or "name" in html
        while 'name="pair"' in html:
            csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
            pair = re.search(r'name="pair" value="(\d+)"', html).group(1)
            html = c.post(
                "/act",
                data={"csrf": csrf, "pair": pair, "value": grade},
                headers={"HX-Request": "true"},
            ).text
        assert 'id="all-done"' in html
    _cli("judge", "export", "--store", "judging.db", "-o", "human.jsonl", cwd=tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "human.jsonl").read_text().splitlines()]
    assert sum(len(x["relevant"]) for x in lines) == len(pool)
    assert {x["assessor"] for x in lines} == {"alice;bob"}
    base = str(e / "questions.csv")
    _cli(
        "judge",
        "export",
        "--store",
        "judging.db",
        "--base",
        base,
        "-o",
        "judgments.jsonl",
        cwd=tmp_path,
    )
    from assay import load_judgments

    merged, original = load_judgments(tmp_path / "judgments.jsonl"), load_judgments(base)
    # a no-answer question stays no-answer: the people's grades for it stay in assessments
    no_answer = {q.query_id for q in original if q.no_answer}
    answerable = [p for p in pool if p["query_id"] not in no_answer]
    assert len(merged.qrels) == len(original.qrels) + len(answerable)
    assert {q.query_id for q in merged if q.no_answer} == no_answer
    assert merged.query_ids == original.query_ids
    out = _cli(
        "evaluate",
        "human.jsonl",
        "--system",
        "bm25",
        "--config",
        str(e / "assay.toml"),
        "--no-record",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert json.loads(out.stdout)["kind"] == "evaluation"
