"""One JSONL and text reader: the same fault gives the same message in every file kind.

Judgments, corpora, answer cases, runs and TREC queries files all read their
text and their JSON lines through :mod:`assay.io.textio`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.answers.load import load_cases
from assay.core.errors import InputError, ProblemLog
from assay.corpora.load import load_corpus
from assay.judgments.load import load_judgments
from assay.judgments.trec import read_queries_file
from assay.runs.io import load_run

GOOD = {
    "judgments.jsonl": '{"query_id": "q1", "query": "a", "relevant": {"d1": 1}}',
    "corpus.jsonl": '{"_id": "d1", "text": "a"}',
    "cases.jsonl": '{"case_id": "c1", "question": "q", "answer": "a"}',
    "run.jsonl": '{"query_id": "q1", "results": ["d1"]}',
    "queries.jsonl": '{"_id": "q1", "text": "a"}',
}


def _queries(path: Path) -> None:
    log = ProblemLog(str(path))
    read_queries_file(path, log)
    log.raise_if_any()


LOADERS: dict[str, Callable[[Path], object]] = {
    "judgments.jsonl": load_judgments,
    "corpus.jsonl": lambda p: load_corpus(p, format="jsonl"),
    "cases.jsonl": load_cases,
    "run.jsonl": load_run,
    "queries.jsonl": _queries,
}


def _problems(name: str, tmp_path: Path, body: bytes) -> dict[int | None, str]:
    path = tmp_path / name
    path.write_bytes(body)
    with pytest.raises(InputError) as exc:
        LOADERS[name](path)
    return {p.line: p.message for p in exc.value.problems}


@pytest.mark.parametrize("name", list(GOOD))
def test_malformed_line(name: str, tmp_path: Path) -> None:
    body = f'{GOOD[name]}\n{{"broken": \n'.encode()
    assert _problems(name, tmp_path, body)[2] == ("malformed JSON: Expecting value at column 12")


@pytest.mark.parametrize("name", list(GOOD))
def test_line_that_is_not_an_object(name: str, tmp_path: Path) -> None:
    got = _problems(name, tmp_path, f"{GOOD[name]}\n[1, 2]\n".encode())[2]
    assert got.startswith("a ") and got.endswith(" must be a JSON object, got list")


@pytest.mark.parametrize("name", list(GOOD))
def test_bytes_that_are_not_utf8(name: str, tmp_path: Path) -> None:
    body = GOOD[name].encode() + b"\n" + GOOD[name].encode().replace(b"1", b"\xff", 1) + b"\n"
    got = _problems(name, tmp_path, body)[2]
    assert got.startswith("bytes that are not UTF-8 at column ") and got.endswith("(b'\\xff')")


@pytest.mark.parametrize("name", ["judgments.jsonl", "corpus.jsonl", "cases.jsonl", "run.jsonl"])
def test_blank_line_and_empty_file(name: str, tmp_path: Path) -> None:
    assert _problems(name, tmp_path, f"{GOOD[name]}\n\n{GOOD[name]}\n".encode())[2] == "blank line"
    assert _problems(name, tmp_path, b"\n")[None].startswith("empty file: no ")


def test_trec_run_undecodable_line_reads_alike(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q0 d1 1 2 t\nq1 Q0 d\xff2 2 1 t\n")
    with pytest.raises(InputError) as exc:
        load_run(path)
    assert exc.value.problems[0].message == "bytes that are not UTF-8 at column 8 (b'\\xff')"


def test_runs_read_bom_and_gzip_like_every_other_file(tmp_path: Path) -> None:
    import gzip

    body = b"\xef\xbb\xbfq1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"
    for name, data in (("run.trec", body), ("run.trec.gz", gzip.compress(body))):
        path = tmp_path / name
        path.write_bytes(data)
        assert load_run(path).to_dict() == {"q1": [("d1", 2.0), ("d2", 1.0)]}
    jl = tmp_path / "run.jsonl.gz"
    jl.write_bytes(gzip.compress(b'{"query_id": "q1", "results": ["d1"]}\n'))
    assert [d for d, _ in load_run(jl).to_dict()["q1"]] == ["d1"]
