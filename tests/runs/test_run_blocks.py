"""A run scored block by block (assay.runs.blocks) gives the whole run's values, bit for bit.

Blocks are made tiny here so that a few hundred lines make many of them: grouped
runs stream, interleaved runs are partitioned by query hash; every measure
family (means, sums, geometric means) and every count of the result must equal
the in-memory path's.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay
import assay.runs.blocks as blocks_mod
import assay.runs.budget as budget_mod
from assay.core.errors import InputError, UsageError
from assay.core.pairs import hashes
from assay.judgments.load import load_judgments
from assay.metrics.blocked import compute_blocked
from assay.metrics.engine import compute
from assay.procedures.evaluation import evaluate
from assay.runs._columns import line_pieces, parse_piece
from assay.runs.blocks import RunBlocks, blocked_run, partition_of
from assay.runs.io import load_run
from assay.runs.models import Run

MEASURES = [
    "AP",
    "nDCG@10",
    "RR",
    "P@5",
    "R@100",
    "Rprec",
    "Bpref",
    "GMAP",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "infAP",
    "RBP",
]


def _tiny(path: Path, block: int = 300, read: int = 1024) -> RunBlocks:
    """Blocks of about ``block`` bytes of ``path`` (the budget's smallest allowed)."""
    found = blocked_run(path, 64)
    assert found is not None  # any file is past the in-memory bound of 64 MB here
    return dataclasses.replace(found, block_bytes=block, read_bytes=read, memory_mb=None)


@pytest.fixture(autouse=True)
def _all_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within 64 MB every run file is blocked, in blocks of a few hundred bytes."""
    monkeypatch.setattr(budget_mod, "BASELINE_MB", 64)
    monkeypatch.setattr(budget_mod, "MIN_BLOCK", 300)
    monkeypatch.setattr(blocks_mod, "READ_BLOCK", 1024)


def _same_table(whole, part) -> None:
    assert part.query_ids == whole.query_ids
    for m, v in whole.values.items():
        assert np.asarray(part.values[m]).tobytes() == np.asarray(v).tobytes(), m
    assert part.first_rel_rank.tolist() == whole.first_rel_rank.tolist()
    assert part.in_run.tolist() == whole.in_run.tolist()
    for name in ("ignored_queries", "missing_queries", "tied_pairs_at_cutoff", "run_queries"):
        assert getattr(part, name) == getattr(whole, name), name
    assert part.aggregate() == whole.aggregate()  # bit for bit, sums and gmeans too


def _write(tmp: Path, rows, grades) -> tuple[Path, Path]:
    run = tmp / "run.trec"
    run.write_text("".join(f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s) in enumerate(rows)))
    qrels = tmp / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in grades.items()))
    return qrels, run


@st.composite
def cases(draw):
    nq = draw(st.integers(1, 12))
    rows = []
    for q in range(nq):
        for i in range(draw(st.integers(1, 40 if q % 3 == 0 else 6))):  # ragged
            rows.append((f"q{q}", f"d{i}", float(draw(st.integers(0, 4)))))  # ties
    if draw(st.booleans()):  # interleaved: lines shuffled over the file
        rows = [rows[i] for i in draw(st.permutations(range(len(rows))))]
    seed = draw(st.integers(0, 10_000))
    rng = random.Random(seed)
    grades = {
        (f"q{q}", f"d{rng.randrange(50)}"): rng.randrange(-1, 4)
        for q in range(nq + 2)  # two judged queries absent from the run
        for _ in range(rng.randrange(1, 6))
    }
    extra = [(f"x{i}", "d1", 1.0) for i in range(draw(st.integers(0, 2)))]  # not judged: ignored
    # the set's other readers: subtopics (diversity qrels), and Hole@k (every doc the
    # whole set names, so its blocks keep the whole set)
    more = draw(st.sampled_from([(), ("Hole@10",), DIVERSITY]))
    return rows + extra, grades, draw(st.sampled_from([200, 600, 5000])), more


DIVERSITY = ("alpha_nDCG@10", "ERR_IA@10", "StRecall@10")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_blocks_give_the_whole_runs_values(case, tmp_path_factory) -> None:
    rows, grades, block, more = case
    tmp = tmp_path_factory.mktemp("blocks")
    qrels, run = _write(tmp, rows, grades)
    fmt = "trec-diversity" if more == DIVERSITY else "trec"
    if fmt == "trec-diversity":  # the second field is the subtopic: 0 to 2
        lines = qrels.read_text().splitlines()
        qrels.write_text("".join(f"{q} {i % 3} {d} {g}\n" for i, (q, _, d, g) in
                                 enumerate(x.split() for x in lines)))  # fmt: skip
    judgments = load_judgments(qrels, format=fmt)
    measures = [*MEASURES, *more]
    whole = compute(judgments, load_run(run), measures, missing="zero")
    table, counted, _ = compute_blocked(judgments, _tiny(run, block), measures)
    _same_table(whole, table)
    assert counted.longest == load_run(run).longest
    assert len(counted) == len(rows)


def test_grouped_runs_stream_and_interleaved_ones_are_partitioned(tmp_path: Path) -> None:
    rows = [(f"q{q}", f"d{i}", float(100 - i)) for q in range(30) for i in range(20)]
    grades = {(f"q{q}", f"d{i}"): 1 for q in range(30) for i in (1, 3)}
    _, run = _write(tmp_path, rows, grades)
    blocks = _tiny(run)
    assert sum(1 for _ in blocks.grouped()) > 10  # many blocks, each of whole queries
    random.Random(3).shuffle(rows)
    _, run = _write(tmp_path, rows, grades)
    blocks = _tiny(run)
    with pytest.raises(blocks_mod.Interleaved):
        list(blocks.grouped())
    parts = list(blocks.partitioned())
    assert len(parts) > 2
    ids = [q for part in parts for q in part.query_ids]
    assert len(ids) == len(set(ids)) == 30  # every query in one partition only


def test_evaluate_within_a_budget_is_the_in_memory_result(tmp_path: Path, monkeypatch) -> None:
    rows = [(f"q{q}", f"d{i}", float(i % 7)) for q in range(40) for i in range(25)]
    random.Random(5).shuffle(rows)
    grades = {(f"q{q}", f"d{i}"): (q + i) % 3 for q in range(42) for i in range(0, 30, 4)}
    qrels, run = _write(tmp_path, rows, grades)
    whole = evaluate(
        qrels, run, MEASURES, options=assay.ScoringOptions(judgments_format="trec", memory=4096)
    )
    seen: list[RunBlocks] = []
    real = blocks_mod.RunBlocks.partitioned

    def spy(self):
        seen.append(self)
        return real(self)

    monkeypatch.setattr(blocks_mod.RunBlocks, "partitioned", spy)
    part = evaluate(
        qrels, run, MEASURES, options=assay.ScoringOptions(judgments_format="trec", memory=64)
    )
    assert seen  # the budget decided: scored block by block
    left, right = whole.model_dump(), part.model_dump()
    for doc in (left, right):
        doc.pop("created_at")
        doc.pop("environment")
    assert left == right


def test_bad_lines_are_named_with_their_line_in_the_file(tmp_path: Path) -> None:
    rows = [(f"q{q}", f"d{i}", 1.0 + i) for q in range(30) for i in range(10)]
    rows[257] = (rows[257][0], rows[250][1], 5.0)  # a repeated document, line 258
    qrels, run = _write(tmp_path, rows, {("q0", "d1"): 1})
    with pytest.raises(InputError) as whole:
        load_run(run)
    with pytest.raises(InputError) as blocked:
        compute_blocked(load_judgments(qrels, format="trec"), _tiny(run), ["AP"])
    assert str(blocked.value) == str(whole.value)
    assert ":258" in str(blocked.value) or "line 258" in str(blocked.value)


def test_a_line_the_stream_refuses_falls_back_to_the_whole_reader(tmp_path: Path) -> None:
    rows = [(f"q{q}", f"d{i}", 1.0 + i) for q in range(30) for i in range(10)]
    qrels, run = _write(tmp_path, rows, {("q0", "d1"): 1, ("q3", "d4"): 2})
    text = run.read_text().replace("q7 Q0 d3", "q7\tQ0 d3")  # a tab: normalised by load_run
    run.write_text(text)
    judgments = load_judgments(qrels, format="trec")
    table, used, _ = compute_blocked(judgments, _tiny(run), ["AP", "NumRet"])
    assert isinstance(used, Run)  # read whole: the stream refused the tab
    _same_table(compute(judgments, load_run(run), ["AP", "NumRet"]), table)


def test_the_budget_is_bounded() -> None:
    for bad in (0, 63, 1 << 21, True, 1.5):
        with pytest.raises(UsageError, match="memory"):
            evaluate("nothere.txt", "nothere.trec", options=assay.ScoringOptions(memory=bad))


def test_real_runs_blocked(shared_data: Path, tmp_path: Path) -> None:
    """trec_eval's own test runs, as given and with their lines shuffled."""
    folder = shared_data / "trec_eval_tests"
    for qrels_name, run_name in (
        ("qrels.test", "results.test"),
        ("qrels.rel_level", "results.test"),
    ):
        judgments = load_judgments(folder / qrels_name, format="trec")
        lines = (folder / run_name).read_text().splitlines(keepends=True)
        random.Random(1).shuffle(lines)
        shuffled = tmp_path / "shuffled.trec"
        shuffled.write_text("".join(lines))
        for run in (folder / run_name, shuffled):
            whole = compute(judgments, load_run(run), MEASURES, missing="zero")
            for block in (2000, 20000):
                table, _, _ = compute_blocked(judgments, _tiny(run, block, 4096), MEASURES)
                _same_table(whole, table)


def test_a_run_written_by_assay_run_keeps_its_marker_and_lines(tmp_path: Path) -> None:
    """The marker line of ``assay run`` is skipped, counted in line numbers, and still asks
    for the sidecar, block by block as whole."""
    from assay.runs.markers import JSONL_MARKER, TREC_MARKER

    rows = [(f"q{q}", f"d{i}", 10.0 - i) for q in range(30) for i in range(10)]
    qrels, run = _write(tmp_path, rows, {("q1", "d2"): 1, ("q4", "d0"): 2})
    run.write_bytes(TREC_MARKER + b" v1\n" + run.read_bytes())
    judgments = load_judgments(qrels, format="trec")
    blocks = _tiny(run)
    table, _, _ = compute_blocked(judgments, blocks, MEASURES)
    _same_table(compute(judgments, load_run(run), MEASURES, missing="zero"), table)
    assert blocks.metadata.get(JSONL_MARKER) is True and blocks.skip == 1
    run.write_bytes(run.read_bytes().replace(b"q20 Q0 d3 ", b"q20 Q0 d2 ", 1))
    with pytest.raises(InputError) as whole:
        load_run(run)
    with pytest.raises(InputError) as blocked:
        compute_blocked(judgments, _tiny(run), ["AP"])
    assert str(blocked.value) == str(whole.value)


@pytest.mark.parametrize("parts", [2, 4, 16, 22, 23, 256])
def test_short_ids_spread_over_every_partition(parts: int) -> None:
    # Short ids hash to their own bytes, which share their first byte ("q"): the
    # partition must still use every part, about evenly, whatever their number.
    import pyarrow as pa

    ids = pa.array([f"q{i}" for i in range(20_000)])
    part = partition_of(hashes(ids), parts)
    assert part.min() >= 0 and part.max() < parts
    sizes = np.bincount(part, minlength=parts)
    assert sizes.min() > 0
    assert sizes.max() <= 1.5 * len(ids) / parts
    assert np.array_equal(part, partition_of(hashes(ids), parts))  # the same every time


def test_no_answer_queries_are_left_to_the_answer_checks(tmp_path: Path) -> None:
    """Queries marked no-answer are not ranked: blocked or whole, the same table, and
    their lines are handed back for the no-answer checks."""
    rows = [(f"q{q}", f"d{i}", float(i % 5)) for q in range(30) for i in range(12)]
    random.Random(5).shuffle(rows)
    _, run = _write(tmp_path, rows, {("q0", "d1"): 1})
    queries = [
        {"query_id": f"q{q}", "text": f"text {q}", "no_answer": q % 4 == 0} for q in range(32)
    ]
    judged = {f"q{q}": {f"d{q % 12}": 1 + q % 3} for q in range(32) if q % 4}
    judgments = assay.JudgmentSet.from_records(queries, judged)
    whole = compute(judgments, load_run(run), MEASURES, missing="zero")
    table, _, asked = compute_blocked(judgments, _tiny(run, 400), MEASURES)
    _same_table(whole, table)
    assert sorted(set(asked.frame["query_id"])) == sorted(f"q{q}" for q in range(0, 30, 4))
    assert len(asked.frame) == 8 * 12


def test_equal_query_hashes_send_a_grouped_run_to_partitions(tmp_path: Path, monkeypatch) -> None:
    """A grouped run's blocks are told apart by their queries' hashes: two ids of one hash
    (long ids may collide) read as a query seen again, so the run is partitioned and its
    values are still the whole run's."""
    rows = [(f"q{q}", f"d{i}", float(100 - i)) for q in range(30) for i in range(20)]
    grades = {(f"q{q}", f"d{i}"): 1 + q % 2 for q in range(30) for i in (1, 3, 7)}
    qrels, run = _write(tmp_path, rows, grades)
    judgments = load_judgments(qrels, format="trec")
    whole = compute(judgments, load_run(run), MEASURES, missing="zero")
    monkeypatch.setattr(blocks_mod, "hashes", lambda c: np.zeros(len(c), dtype=np.uint64))
    with pytest.raises(blocks_mod.Interleaved):
        list(_tiny(run).grouped())
    table, counted, _ = compute_blocked(judgments, _tiny(run), MEASURES)
    _same_table(whole, table)
    assert counted.query_ids == load_run(run).query_ids


def test_the_judgments_are_cut_once_for_a_run_found_interleaved(
    tmp_path: Path, monkeypatch
) -> None:
    """A grouped run found interleaved is partitioned with the cut already made."""
    import assay.metrics.blocked as blocked_mod

    rows = [(f"q{q}", f"d{i}", float(i % 5)) for q in range(20) for i in range(15)]
    rows = rows[:150] + rows[160:] + rows[150:160]  # q10's lines come back at the end
    grades = {(f"q{q}", f"d{i}"): 1 for q in range(20) for i in (0, 4)}
    qrels, run = _write(tmp_path, rows, grades)
    judgments = load_judgments(qrels, format="trec")
    made: list[object] = []
    real = blocked_mod.BlockJudgments.__init__

    def count(self, js):
        made.append(self)
        real(self, js)

    monkeypatch.setattr(blocked_mod.BlockJudgments, "__init__", count)
    table, _, _ = compute_blocked(judgments, _tiny(run, block=2000), MEASURES)
    assert len(made) == 1
    _same_table(compute(judgments, load_run(run), MEASURES, missing="zero"), table)


def test_blocks_leave_room_for_what_every_judged_query_keeps(monkeypatch) -> None:
    """The blocks get the budget less what the process holds and less what the merged
    values of the set's queries will hold by the end."""
    monkeypatch.setattr(budget_mod, "resident_mb", lambda: 300.0)
    monkeypatch.setattr(budget_mod, "MIN_BLOCK", 1)
    blocks = RunBlocks("run.trec", "run", 1, memory_mb=1024)
    alone = blocks.fit().block_bytes
    kept = budget_mod.kept_mb(1_000_000, 4)
    assert kept == pytest.approx(1_000_000 * (budget_mod.KEPT_PER_QUERY + 32) / 2**20)
    # a block is scored while the next is read: room for both
    per_byte = budget_mod.MEMORY_PER_FILE_BYTE + budget_mod.READ_AHEAD
    assert alone == int(724 * 2**20 / per_byte)
    room = blocks.fit(1_000_000, 4).block_bytes
    assert room == int((724 - kept) * 2**20 / per_byte)
    assert blocks.streamed_bytes == min(room, blocks_mod.STREAMED_BLOCK)


@st.composite
def texts(draw):
    """File bytes of lines of any length, ``\\n``, ``\\r\\n`` or ``\\r`` ends, perhaps no
    end on the last line."""
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    lines = draw(
        st.lists(
            st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
            max_size=30,
        )
    )
    data = end.join(lines)
    if lines and draw(st.booleans()):
        data += end
    return data, end


@settings(max_examples=150, deadline=None)
@given(case=texts(), size=st.integers(1, 64))
def test_a_file_read_in_pieces_of_whole_lines_is_the_file(case, size, tmp_path_factory) -> None:
    data, end = case
    path = tmp_path_factory.mktemp("pieces") / "run.trec"
    path.write_bytes(data)
    pieces = list(line_pieces(path, size))
    assert b"".join(pieces) == data
    assert all(pieces)
    for piece in pieces[:-1]:  # every piece but the last ends a line, never inside \r\n
        assert piece.endswith(end)
    if data.endswith(end):
        assert not pieces or pieces[-1].endswith(end)


def _reading() -> bool:
    import threading

    return any(t.name == "assay-read" and t.is_alive() for t in threading.enumerate())


def test_blocks_are_read_while_the_judgments_load_and_stopped_after(tmp_path: Path) -> None:
    """The first blocks are read on a second thread from the start; a failure before them
    (the judgments, a sidecar) stops it, as does the end of the scoring."""
    from assay.procedures.sources import reading_beside

    rows = [(f"q{q}", f"d{i}", float(100 - i)) for q in range(50) for i in range(20)]
    qrels, run = _write(tmp_path, rows, {("q1", "d1"): 1})
    blocks = _tiny(run)
    with pytest.raises(RuntimeError, match="judgments failed"), reading_beside(blocks) as given:
        assert given is blocks and _reading()
        raise RuntimeError("judgments failed")
    assert not _reading()
    whole = evaluate(qrels, run, ["AP"], options=assay.ScoringOptions(judgments_format="trec"))
    run.with_name("run.trec.json").write_text('{"judgments_version": "not-these"}')
    with pytest.raises(UsageError, match="judgment-set version"):
        evaluate(
            qrels, run, ["AP"], options=assay.ScoringOptions(judgments_format="trec", memory=64)
        )
    assert not _reading()
    run.with_name("run.trec.json").unlink()
    part = evaluate(
        qrels, run, ["AP"], options=assay.ScoringOptions(judgments_format="trec", memory=64)
    )
    assert not _reading()
    assert part.per_query == whole.per_query and part.aggregate == whole.aggregate


def test_a_piece_with_a_line_longer_than_a_parse_block_is_parsed(tmp_path: Path) -> None:
    """pyarrow refuses a line that straddles two of its blocks: such a piece is parsed in
    one block, and a run with a 3 MB doc id is scored by blocks as whole."""
    long = "d" * (3 << 20)
    rows = [(f"q{q}", f"d{i}", float(9 - i)) for q in range(6) for i in range(8)]
    rows[20] = (rows[20][0], long, 0.5)
    qrels, run = _write(tmp_path, rows, {("q2", "d5"): 1, ("q3", "d1"): 2})
    table = parse_piece(run.read_bytes(), 0)
    assert table.num_rows == len(rows) and table.column("doc_id")[20].as_py() == long
    judgments = load_judgments(qrels, format="trec")
    blocked, used, _ = compute_blocked(judgments, _tiny(run, 1 << 20, 2 << 20), ["AP", "RR"])
    assert isinstance(used, RunBlocks)  # not the whole reader's fallback
    _same_table(compute(judgments, load_run(run), ["AP", "RR"], missing="zero"), blocked)


def test_the_first_blocks_leave_room_for_the_judgments_still_to_load(
    tmp_path: Path, monkeypatch
) -> None:
    """Blocks read while the judgments load are sized to the budget less what the process
    holds and what loading the judgments will hold; the smallest when that is not known."""
    monkeypatch.setattr(budget_mod, "resident_mb", lambda: 200.0)
    monkeypatch.setattr(budget_mod, "MIN_BLOCK", 1 << 20)
    monkeypatch.setattr(blocks_mod, "in_memory_bytes", lambda memory_mb: 0)  # any file
    rows = [(f"q{q}", f"d{i}", float(i)) for q in range(20) for i in range(10)]
    qrels, run = _write(tmp_path, rows, {("q1", "d1"): 1})
    coming = budget_mod.judgments_mb(qrels)
    assert coming == qrels.stat().st_size * budget_mod.JUDGMENTS_PER_FILE_BYTE / 2**20
    assert budget_mod.judgments_mb(tmp_path) is None  # a folder: not known
    first = blocked_run(run, 1024, coming_mb=600.0)
    per_byte = budget_mod.MEMORY_PER_FILE_BYTE + budget_mod.READ_AHEAD
    assert first is not None and first.block_bytes == int((1024 - 200 - 600) * 2**20 / per_byte)
    unknown = blocked_run(run, 1024)
    assert unknown is not None and unknown.block_bytes == 1 << 20
    full = blocked_run(run, 1024, coming_mb=5000.0)  # a set larger than the budget
    assert full is not None and full.block_bytes == 1 << 20


def test_an_interleaved_run_is_partitioned_while_the_judgments_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run interleaved from its first lines is partitioned on the reading thread before a
    block is asked for, once; the partitions are deleted once read, or when the
    evaluation fails first."""
    import tempfile
    import threading
    import time

    from assay.procedures.sources import reading_beside

    rows = [(f"q{q}", f"d{i}", float(100 - i)) for q in range(40) for i in range(20)]
    random.Random(9).shuffle(rows)
    _, run = _write(tmp_path, rows, {("q1", "d1"): 1})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    where: list[str] = []
    real = RunBlocks._partition

    def spy(self, tmp, parts):
        where.append(threading.current_thread().name)
        return real(self, tmp, parts)

    monkeypatch.setattr(RunBlocks, "_partition", spy)
    blocks = _tiny(run).start()
    deadline = time.monotonic() + 30
    while blocks._early is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert where == ["assay-read"] and list(scratch.iterdir())  # written, nothing asked yet
    with pytest.raises(blocks_mod.Interleaved):
        list(blocks.grouped())
    parts = list(blocks.partitioned())
    assert where == ["assay-read"]  # not written again
    assert sorted(q for part in parts for q in part.query_ids) == sorted({q for q, _, _ in rows})
    assert not list(scratch.iterdir())

    blocks = _tiny(run)
    with pytest.raises(RuntimeError, match="judgments failed"), reading_beside(blocks):
        raise RuntimeError("judgments failed")
    assert not _reading() and not list(scratch.iterdir())
    with pytest.raises(blocks_mod.Stopped):  # discarded: no piece of the file is read again
        next(iter(blocks._batches()))
