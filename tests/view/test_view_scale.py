"""``assay view`` at scale (issue 38, item 3): a query's page reads only that query's lines.

An evaluation over a generated run (20,000 queries x 100 lines, scores with many
ties) is served; once the run's byte offsets are indexed, a query's page is
answered with the whole-run reader made to fail, its ranked list equals the one
the whole run gives (documents, ranks, scores, grades), the index is rebuilt
when the run changes or the cached index is damaged, and pages stay under 2 MB.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import assay
from assay.runs import offsets
from assay.view import evidence, make_app

QUERIES, DEPTH = 20_000, 100
#: The bound on a page's payload (bytes of HTML).
PAGE_BYTES = 2 << 20


def _run_lines(queries: int, depth: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for q in range(queries):
        for k in range(depth):
            doc = (q * 7 + k * 13) % 100_000
            lines.append(f"q{q:05d} Q0 d{doc:06d} {k + 1} {rng.randrange(20) / 4} sys\n")
    return lines


def _qrels(folder: Path, queries: int) -> Path:
    path = folder / "qrels.txt"
    with path.open("w") as f:
        for q in range(queries):
            for k, grade in ((0, 1), (5, 2), (50, 1), (150, 3)):
                f.write(f"q{q:05d} 0 d{(q * 7 + k * 13) % 100_000:06d} {grade}\n")
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> dict:

    folder = tmp_path_factory.mktemp("viewscale")
    run = folder / "run.trec"
    run.write_text("".join(_run_lines(QUERIES, DEPTH, 1)))
    qrels = _qrels(folder, QUERIES)
    result = assay.evaluate(
        qrels, str(run), ["nDCG@10"], evaluation=assay.EvaluationOptions(name="sys")
    )
    (folder / "eval.json").write_text(result.to_json(), encoding="utf-8")
    return {"folder": folder, "run": run, "qrels": qrels, "file": folder / "eval.json"}


def _old(run: Path, qrels: Path, qids: list[str]) -> dict[str, list]:
    """The ranked lists as the whole-run path gives them: load_run, to_dict, every grade."""
    from assay.judgments.load import load_judgments
    from assay.runs.io import load_run
    from assay.runs.models import Run

    # what Run.to_dict walks, here for ``qids`` only (each query is ordered on its own
    # lines, so the rest of the run is left out before ordering)
    whole = load_run(run)
    frame = whole.frame[whole.frame["query_id"].astype(str).isin(qids)]
    frame = Run(frame.reset_index(drop=True), name=whole.name, has_scores=True).ranked("score")
    ranked: dict[str, list[tuple[str, float]]] = {}
    columns = (frame["query_id"].astype(str), frame["doc_id"].astype(str), frame["score"])
    for q, d, s in zip(*columns, strict=True):
        ranked.setdefault(q, []).append((d, float(s)))
    q = load_judgments(qrels).qrels
    grades = {
        (str(a), str(b)): int(g)
        for a, b, g in zip(q["query_id"], q["doc_id"], q["grade"], strict=True)
    }
    return {
        qid: [
            (i, d, s, grades.get((qid, d)))
            for i, (d, s) in enumerate(ranked[qid][: evidence.MAX_RANKS], 1)
        ]
        for qid in qids
    }


def _new(big: dict, qid: str) -> list[tuple[int, str, float | None, int | None]]:
    ranked = evidence.ranked_list(
        "sys", str(big["run"]), qid, [big["folder"]], judgments=(str(big["qrels"]), None)
    )
    assert ranked.found
    return [(d.rank, d.doc_id, d.score, d.grade) for d in ranked.docs]


def test_query_page_reads_only_its_lines(big: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    client = TestClient(make_app([big["file"]]))
    assert client.get("/r/f1/q/q00003").status_code == 200  # starts building the index
    evidence._index(str(big["run"]))  # built (or waited for)
    read: list[int] = []
    real = offsets.query_bytes

    def counted(*args: object) -> bytes | None:
        data = real(*args)  # type: ignore[arg-type]
        read.append(len(data or b""))
        return data

    def whole(*_: object, **__: object) -> None:
        raise AssertionError("the whole run was read")

    monkeypatch.setattr(offsets, "query_bytes", counted)
    monkeypatch.setattr(evidence, "_run", whole)
    monkeypatch.setattr("assay.runs.io.load_run", whole)
    monkeypatch.setattr(evidence, "load_run", whole)  # the name evidence.py reads
    import pyarrow.csv as pacsv

    parse = pacsv.read_csv

    def buffers_only(source: object, **kw: object) -> object:
        if isinstance(source, str | Path):  # a file, not the query's bytes
            raise AssertionError("the run file was parsed")
        return parse(source, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pacsv, "read_csv", buffers_only)
    page = client.get("/r/f1/q/q12345")
    assert page.status_code == 200, page.text
    first = _new(big, "q12345")[0][1]
    assert first in page.text
    assert len(page.content) < PAGE_BYTES
    assert read and max(read) < big["run"].stat().st_size / 1000  # one query's lines


def test_a_page_before_the_index_searches_the_run(
    big: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query page asked while the index is not ready reads its query's lines by searching
    the file (it does not wait for the whole index): the same ranked list."""
    evidence._offsets.cache_clear()
    evidence._READY.clear()
    evidence.index_path(big["run"]).unlink(missing_ok=True)  # not cached either
    monkeypatch.setattr(evidence, "_index_later", lambda path: None)  # never ready here

    def no_index(*_: object) -> None:
        raise AssertionError("the page waited for the index")

    monkeypatch.setattr(evidence, "_index", no_index)
    qids = ["q00000", "q10001", "q19999"]
    assert {qid: _new(big, qid) for qid in qids} == _old(big["run"], big["qrels"], qids)


def test_query_list_equals_the_whole_run_path(big: dict) -> None:
    qids = ["q00000", "q00001", "q09999", "q19999"]
    old = _old(big["run"], big["qrels"], qids)
    assert {qid: _new(big, qid) for qid in qids} == old
    assert any(g is None for _, _, _, g in old["q00001"])  # unjudged documents too
    assert {g for _, _, _, g in old["q19999"]} >= {1, 2}


def test_interleaved_run_gives_the_same_lists(tmp_path: Path) -> None:
    lines = _run_lines(300, 30, 2)
    random.Random(3).shuffle(lines)
    run = tmp_path / "shuffled.trec"
    run.write_text("".join(lines))
    qrels = _qrels(tmp_path, 300)
    big = {"run": run, "qrels": qrels, "folder": tmp_path}
    table = offsets.load_offsets(run, None)
    assert table.num_rows > 300  # many stretches per query
    qids = ["q00000", "q00150", "q00299"]
    assert {qid: _new(big, qid) for qid in qids} == _old(run, qrels, qids)


def test_index_is_rebuilt_when_the_run_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(evidence, "_index_later", evidence._index)  # built at once, here
    run = tmp_path / "run.trec"
    run.write_text("".join(_run_lines(50, 10, 4)))
    cache = evidence.index_path(run)
    assert evidence.query_ranking(str(run), "q00007") == _pairs(run, "q00007")
    assert cache.is_file()
    built = cache.stat().st_mtime_ns
    run.write_text("".join(_run_lines(60, 12, 5)))  # new size and time
    assert evidence.query_ranking(str(run), "q00055") == _pairs(run, "q00055")
    assert cache.stat().st_mtime_ns != built
    # the same size and time, other content: a range that no longer starts with its query
    stat = run.stat()
    text = run.read_text().replace("q00030", "q00099")
    run.write_text(text)
    os.utime(run, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    evidence._offsets.cache_clear()
    assert evidence.query_ranking(str(run), "q00030") == []
    assert evidence.query_ranking(str(run), "q00099") == _pairs(run, "q00099")
    cache.write_bytes(b"not an index")  # damaged: rebuilt, never trusted
    evidence._offsets.cache_clear()
    assert evidence.query_ranking(str(run), "q00020") == _pairs(run, "q00020")
    assert cache.read_bytes() != b"not an index"


def _pairs(run: Path, qid: str) -> list[tuple[str, float]]:
    from assay.runs.io import load_run

    return load_run(run).to_dict().get(qid, [])


def test_files_that_cannot_be_indexed_use_the_whole_run(tmp_path: Path) -> None:
    run = tmp_path / "tabs.trec"
    run.write_text("".join(_run_lines(5, 4, 6)).replace(" Q0 ", "\tQ0\t"))
    assert offsets.load_offsets(run, None) is None
    assert evidence.query_ranking(str(run), "q00002") == _pairs(run, "q00002")


def test_result_page_and_a_long_list_stay_under_the_bound(big: dict, tmp_path: Path) -> None:

    client = TestClient(make_app([big["file"]]))
    assert len(client.get("/r/f1").content) < PAGE_BYTES
    run = tmp_path / "long.trec"  # one query of 20,000 lines: the page shows the first ranks
    run.write_text("".join(f"q1 Q0 d{k} {k + 1} {-k} sys\n" for k in range(20_000)))
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d3 1\n")
    result = assay.evaluate(
        qrels, str(run), ["nDCG@10"], evaluation=assay.EvaluationOptions(name="long")
    )
    (tmp_path / "long.json").write_text(result.to_json(), encoding="utf-8")
    page = TestClient(make_app([tmp_path / "long.json"])).get("/r/f1/q/q1")
    assert page.status_code == 200 and "d99" in page.text and "d100<" not in page.text
    assert len(page.content) < PAGE_BYTES


def test_result_page_indexes_its_run_in_the_background(tmp_path: Path) -> None:
    import time

    run = tmp_path / "warm.trec"
    run.write_text("".join(_run_lines(40, 5, 7)))
    qrels = _qrels(tmp_path, 40)
    result = assay.evaluate(
        qrels, str(run), ["nDCG@10"], evaluation=assay.EvaluationOptions(name="warm")
    )
    (tmp_path / "warm.json").write_text(result.to_json(), encoding="utf-8")
    cache = evidence.index_path(run)
    assert not cache.exists()
    assert TestClient(make_app([tmp_path / "warm.json"])).get("/r/f1").status_code == 200
    deadline = time.monotonic() + 30
    while not cache.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cache.is_file()


def test_marked_crlf_run_gives_the_same_lists(tmp_path: Path) -> None:
    from assay.runs.markers import TREC_MARKER

    run = tmp_path / "marked.trec"
    body = "".join(_run_lines(30, 8, 8)).replace("\n", "\r\n")
    run.write_bytes(TREC_MARKER + b"\n" + body.encode())
    assert offsets.load_offsets(run, None).num_rows == 30
    for qid in ("q00000", "q00029"):
        assert evidence.query_ranking(str(run), qid) == _pairs(run, qid)
