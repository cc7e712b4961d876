"""`assay run` end to end: run file, sidecar, cache, abstention and exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from assay.cli import main


def _run(*args: str) -> int:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    return int(exc.value.code or 0)


@pytest.fixture()
def example(examples_dir: Path) -> Path:
    return examples_dir / "statistics"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))


def test_run_example_writes_run_and_sidecar(example: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "runs" / "keyword.trec"
    code = _run(
        "run",
        str(example / "questions.csv"),
        "--system",
        "keyword",
        "--config",
        str(example / "assay.toml"),
        "-k",
        "10",
        "-o",
        str(out),
        "--abstain-below",
        "0.2",
        "--no-progress",
    )
    assert code == 0
    raw = out.read_bytes()
    lines = raw.decode().splitlines()
    assert all(len(line.split()) == 6 for line in lines)  # a plain TREC run, no marker line
    first = {}
    for line in lines:
        qid, _, doc, rank, _score, tag = line.split()
        assert tag == "keyword"
        if rank == "1":
            first[qid] = doc
    assert first["q04"] == "LF_UNEMP_PCT" and first["q09"] == "HE_U5_MORT_RATE"
    assert "q01" not in first and "q11" not in first
    side = json.loads((tmp_path / "runs" / "keyword.trec.json").read_text())
    assert side["system_config"]["text_fields"] == ["name", "definition_long"]
    assert side["config_hash"].startswith("sha256:")
    assert side["corpus_version"].startswith("sha256:")
    assert side["judgments_version"].startswith("sha256:")
    assert side["k"] == 10 and side["queries"] == 15 and side["failures"] == []
    assert {"p50", "p95"} <= set(side["latency_ms"]) and side["assay_version"]
    assert side["abstention"]["no_answer_queries"] == 1
    assert side["run_file"] == {
        "name": "keyword.trec",
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    assert "15/15 queries" in capsys.readouterr().out
    assert list((tmp_path / "cache").glob("*.json"))  # stored for next time


def test_second_run_comes_from_cache_and_no_cache_skips_it(
    example: Path, tmp_path: Path, capsys
) -> None:
    args = [
        "run",
        str(example / "questions.csv"),
        "-s",
        "keyword-names-only",
        "--config",
        str(example / "assay.toml"),
        "-o",
        str(tmp_path / "n.jsonl"),
        "--no-progress",
    ]
    assert _run(*args) == 0
    assert "(from cache)" not in capsys.readouterr().out
    assert _run(*args) == 0
    assert "(from cache)" in capsys.readouterr().out
    assert _run(*args, "--no-cache") == 0
    assert "(from cache)" not in capsys.readouterr().out
    lines = (tmp_path / "n.jsonl").read_text().splitlines()
    assert all("query_id" in json.loads(line) for line in lines)  # queries only, no header
    side = json.loads((tmp_path / "n.jsonl.json").read_text())
    assert side["run_file"]["name"] == "n.jsonl"


def test_command_line_system_on_a_temp_corpus(tmp_path: Path) -> None:
    (tmp_path / "docs.jsonl").write_text(
        '{"doc_id": "a", "title": "red apples", "body": "fruit"}\n'
        '{"doc_id": "b", "title": "green pears", "body": "fruit"}\n'
    )
    (tmp_path / "j.jsonl").write_text(
        '{"query_id": "1", "query": "apples", "relevant": {"a": 1}}\n'
        '{"query_id": "2", "query": "pears", "relevant": {"b": 1}}\n'
    )
    out = tmp_path / "r.trec"
    code = _run(
        "run",
        str(tmp_path / "j.jsonl"),
        "--system",
        "keyword",
        "--corpus",
        str(tmp_path / "docs.jsonl"),
        "--text-field",
        "title",
        "-o",
        str(out),
        "--no-progress",
    )
    assert code == 0
    assert [line.split()[2] for line in out.read_text().splitlines()] == ["a", "b"]
    side = json.loads((tmp_path / "r.trec.json").read_text())
    assert side["system_config"]["text_fields"] == ["title"]


def test_python_function_system(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "j.jsonl").write_text('{"query_id": "1", "query": "x y", "relevant": {"d1": 1}}\n')
    spec = f"{data_dir / 'systems' / 'user_search.py'}:search"
    out = tmp_path / "p.trec"
    assert _run("run", str(tmp_path / "j.jsonl"), "-s", spec, "-o", str(out), "--no-progress") == 0
    assert out.read_text().splitlines()[0].split()[2] == "d1"  # a plain run: no marker line


def test_all_failed_exits_1(tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text("def search(q, k):\n    raise RuntimeError('down')\n")
    (tmp_path / "j.jsonl").write_text('{"query_id": "1", "query": "x", "relevant": {"d1": 1}}\n')
    out = tmp_path / "b.trec"
    code = _run(
        "run",
        str(tmp_path / "j.jsonl"),
        "-s",
        f"{tmp_path / 'boom.py'}:search",
        "-o",
        str(out),
        "--retries",
        "0",
        "--no-progress",
    )
    assert code == 1
    side = json.loads((tmp_path / "b.trec.json").read_text())
    assert side["failures"][0]["query_id"] == "1" and "down" in side["failures"][0]["error"]


def test_invalid_input_exits_2(example: Path, tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "x.trec")
    q = str(example / "questions.csv")
    assert _run("run", q, "-s", "nope", "-o", out) == 2
    assert "unknown system 'nope'" in capsys.readouterr().err
    assert _run("run", q, "-s", "keyword", "-o", out) == 2
    assert "needs a corpus" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("idno,name\nA,x\nA,y\n")
    assert _run("run", q, "-s", "keyword", "--corpus", str(bad), "-o", out) == 2
    err = capsys.readouterr().err
    assert "bad.csv:3" in err and "duplicate id" in err
    assert _run("run", q, "-s", "keyword", "--corpus", str(bad), "-o", out, "-k", "0") == 2
    assert _run("run", q, "-s", "keyword", "--corpus", str(bad), "-o", out, "--format", "x") == 2
    assert not (tmp_path / "x.trec").exists()
