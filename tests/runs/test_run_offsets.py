"""The byte-offset index of a run (:mod:`assay.runs.offsets`) against the whole-run reader.

Hypothesis writes runs with query ids of every length around the 8-byte word the
scanner reads at once (and far past it), non-ASCII ids, interleaved queries, CRLF
line ends, ``assay run``'s marker line and a missing last newline; the file is
scanned in blocks of a few bytes (lines split over blocks) and in two halves. For
every query, the lines the index points to give the ranked list ``load_run`` gives
from the whole file, and the stretches cover every line once; searching the file
for a query's lines without the index finds the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core import _threads
from assay.runs import offsets
from assay.runs.io import load_run
from assay.runs.markers import TREC_MARKER

_ID = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda s: s[0] not in "{[")  # a run opening with { or [ is read as JSON, not TREC


@st.composite
def _runs(draw: st.DrawFn) -> tuple[bytes, int]:
    qids = draw(st.lists(_ID, min_size=1, max_size=12, unique=True))
    lines = [
        f"{q} Q0 d{k}_{draw(st.integers(0, 9))} {k + 1} {draw(st.integers(-5, 5)) / 2} sys"
        for q in qids
        for k in range(draw(st.integers(1, 6)))
    ]
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    body = end.join(lines) + (end if draw(st.booleans()) else "")
    marker = TREC_MARKER + b" test\n" if draw(st.booleans()) else b""
    return marker + body.encode(), len(marker)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(run=_runs(), block=st.sampled_from([7, 64, 1 << 24]), split=st.booleans())
def test_index_gives_the_whole_runs_lists(
    run: tuple[bytes, int],
    block: int,
    split: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, marker = run
    path = tmp_path / "run.trec"
    path.write_bytes(data)
    monkeypatch.setattr(offsets, "SCAN_BYTES", block)
    monkeypatch.setattr(_threads, "THREADED_AT", 1 if split else 1 << 40)
    table = offsets.build_offsets(path)
    whole = load_run(path).to_dict()
    assert table is not None
    starts, lengths = table.column("offset").to_pylist(), table.column("length").to_pylist()
    assert starts[0] == marker and sum(lengths) == len(data) - marker
    assert all(a + n == b for a, n, b in zip(starts, lengths, starts[1:], strict=False))
    assert set(table.column("query").to_pylist()) == set(whole)
    for qid, ranked in whole.items():
        assert offsets.query_lines(path, table, qid) == ranked
        # searched for without the index (a page asked before it is built): the same lines
        assert offsets.scan_bytes(path, qid) == offsets.query_bytes(path, table, qid)
        assert offsets.scan_lines(path, qid) == ranked
    assert offsets.scan_lines(path, "no such query") is None


@pytest.mark.parametrize(
    "data",
    [
        b"q1\tQ0\td1\t1\t2\ts\n",  # tabs: pyarrow reads one field
        b"q1 Q0 d 1 2 s\n\nq2 Q0 d 1 2 s\n",  # a blank line
        b"q1 Q0 d 1 2 s\rq2 Q0 d 1 2 s\n",  # a carriage return pyarrow ends a line at
        b" q1 Q0 d 1 2 s\n",  # an empty query id
        b"q\xff Q0 d 1 2 s\n",  # a query id that is not UTF-8
        b"a-query-id-longer-than-eight-bytes\tQ0 d 1 2 s\n",
    ],
)
def test_lines_that_are_not_plain_are_not_indexed(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(data)
    assert offsets.build_offsets(path) is None


def test_a_bad_field_is_named_by_the_whole_reader(tmp_path: Path) -> None:
    from assay.core.errors import InputError

    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q0 d1 1 2 s\nq2 Q0 d1 1 2\n")  # q2's line lacks its tag
    table = offsets.build_offsets(path)
    assert offsets.query_lines(path, table, "q1") == [("d1", 2.0)]
    with pytest.raises(InputError, match=r"run.trec:2: expected 6 fields"):
        offsets.query_lines(path, table, "q2")
