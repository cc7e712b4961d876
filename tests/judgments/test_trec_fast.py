"""The fast path of clean TREC qrels builds exactly the checked reader's frame, or steps aside."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import ProblemLog
from assay.judgments._build import check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.trec import QRELS3_COLUMNS, QRELS_COLUMNS, parse_trec_qrels
from assay.judgments.trec_fast import clean_qrels

FIXTURES = ["qrels.test", "qrels.rel_level", "qrels-302.test", "qrels.comment.test"]


def checked(data: bytes, columns: tuple[str, ...] = QRELS_COLUMNS) -> pd.DataFrame:
    """The checked reader's frame (the fast path bypassed)."""
    log = ProblemLog("qrels")
    text = data.decode()
    frame = read_table(data, text, columns, log, layout=" ".join(columns))
    out = check_qrels_frame(frame, log, None)
    assert not log
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_real_qrels_same_frame(shared_data, name):
    data = (shared_data / "trec_eval_tests" / name).read_bytes()
    fast = clean_qrels(data, QRELS_COLUMNS)
    if b"\n#" in data or data.startswith(b"#"):
        assert fast is None  # comments: the checked reader keeps line numbers right
        return
    assert fast is not None, name
    pd.testing.assert_frame_equal(fast, checked(data))


def test_fingerprint_rel_level(shared_data):
    data = (shared_data / "trec_eval_tests" / "qrels.rel_level").read_bytes()
    frame = parse_trec_qrels(data, ProblemLog("qrels.rel_level"))
    rows = [tuple(frame.iloc[i][["query_id", "doc_id", "grade", "line"]]) for i in (0, 9, -1)]
    lines = data.decode().splitlines()
    expected = []
    for i in (0, 9, len(lines) - 1):
        q, _, d, g = lines[i].split()
        expected.append((q, d, int(g), i + 1))
    assert len(frame) == len(lines)
    assert rows == expected
    assert int((frame["grade"] < 0).sum()) == sum(ln.split()[3].startswith("-") for ln in lines)


@pytest.mark.parametrize(
    "data",
    [
        b"q1 0 d1 1\nq1 0 d2 0x1\n",  # hexadecimal: pyarrow reads 1, the rule rejects it
        b"q1 0 d1 +1\n",  # a plus sign: the checked reader strips it
        b"q1 0 d1 1.5\n",
        b"q1 0 d1 1\nq1 0 d1 2\n",  # a repeated pair: the checked reader names both lines
        b"# comment\nq1 0 d1 1\n",
        b"q1 0 d1 1\n\nq1 0 d2 1\n",
        b"q1\t0\td1\t1\n",
        b"q1 0  d1 1\n",
        b"q1 0 d1 1\r\n",
        b"q1 0 d1\n",
        b"q1 0 d1 1 extra\n",
        b"q1 0 d1 1234567890123456789\n",  # 19 digits
        b"q1 0 d1 0000000000000000001\n",  # 19 digits, a small value
        b"q1 0 d1 1\n q2 0 d1 1\n",  # a blank that starts a later line
        b"q1 0 d1 1 \nq2 0 d1 1\n",  # a blank that ends an earlier line
        b"q1  d1 1\nq2 0 d1 1\n",  # three fields and an empty one
        b"q1 0 d1 1\n# a b c\n",  # a comment of four fields
        b"q1 0 d1 --1\n",
        b"q1 0 d1 -\n",
        b"q1 0 d1 0X1\n",
        b"q1 0 d1 1\x0b\n",
        b"q1 \xff d1 1\n",  # not UTF-8, in a field no score reads
        b"q1 0 d\xed\xa0\x80 1\n",  # an encoded surrogate: not UTF-8
        b"",
    ],
)
def test_unusual_input_steps_aside(data):
    assert clean_qrels(data, QRELS_COLUMNS) is None


def test_three_columns():
    data = b"1 184 2\n1 29 2\n2 12 -1\n"
    fast = clean_qrels(data, QRELS3_COLUMNS)
    assert fast is not None
    pd.testing.assert_frame_equal(fast, checked(data, QRELS3_COLUMNS))


@pytest.mark.parametrize("data", [b"q1 \xff d1 1\n", b"q1 0 d\xed\xa0\x80 1\n"])
def test_bytes_not_utf8_are_named(data):
    log = ProblemLog("qrels")
    parse_trec_qrels(data, log)
    assert [p.line for p in log.problems] == [1]
    assert "not UTF-8" in log.problems[0].message


ids = st.text(alphabet="abcXYZ019._-é", min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(ids, ids, st.integers(-3, 4)), min_size=1, max_size=40),
    st.booleans(),
)
def test_property_same_as_checked(rows, newline):
    seen, lines = set(), []
    for q, d, g in rows:
        if (q, d) not in seen:
            seen.add((q, d))
            lines.append(f"{q} 0 {d} {g}")
    data = ("\n".join(lines) + ("\n" if newline else "")).encode()
    fast = clean_qrels(data, QRELS_COLUMNS)
    assert fast is not None
    pd.testing.assert_frame_equal(fast, checked(data))


#: Fields and separators: clean ones, and what the checked reader treats apart.
_CLEAN = {
    "query": ["q1", "q2", "q3", "é4"],
    "iteration": ["0", "Q0"],
    "doc": [f"d{i}" for i in range(30)] + ["é#", "d#7"],
    "grade": ["0", "1", "2", "-1", "-2", "07", "-0"],
    "sep": [" "],
    "end": ["\n"],
    "start": [""],
}
_ODD = {
    "query": ["#q", ""],
    "iteration": [""],
    "doc": [""],
    "grade": ["", "+1", "0x1", "1.5", "--1", "-", "0" * 19],
    "sep": ["  ", "\t", ""],
    "end": [" \n", "\r\n", "\n\n", "\x0c\n"],
    "start": [" "],
}


@st.composite
def _qrels_bytes(draw: st.DrawFn) -> bytes:
    """Qrels bytes, clean or with an odd piece now and then (one in ``rarity``)."""
    rarity = draw(st.sampled_from([0, 5, 30, 200]))

    def piece(kind: str) -> str:
        odd = rarity and draw(st.integers(1, rarity)) == 1
        return draw(st.sampled_from((_ODD if odd else _CLEAN)[kind]))

    lines = []
    for _ in range(draw(st.integers(1, 8))):
        fields = [piece("query"), piece("iteration"), piece("doc"), piece("grade")]
        if rarity and draw(st.integers(1, rarity)) == 1:
            fields = draw(st.sampled_from([fields[:3], [*fields, "x"]]))
        line = piece("start")
        for i, value in enumerate(fields):
            line += value + (piece("sep") if i < len(fields) - 1 else piece("end"))
        lines.append(line)
    data = "".join(lines)
    return (data if draw(st.booleans()) else data.rstrip("\n")).encode()


@settings(max_examples=400, deadline=None)
@given(_qrels_bytes())
def test_property_accepts_only_what_the_checked_reader_reads_alike(data):
    """Whatever the bytes, the fast path gives the checked reader's frame or steps aside."""
    fast = clean_qrels(data, QRELS_COLUMNS)
    if fast is None:
        return
    log = ProblemLog("qrels")
    frame = read_table(data, data.decode(), QRELS_COLUMNS, log, layout=" ".join(QRELS_COLUMNS))
    slow = check_qrels_frame(frame, log, None)
    assert not log, (data, log.problems)
    pd.testing.assert_frame_equal(fast, slow)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "q3", "q4", "é5"]), st.integers(-1, 2)), min_size=1
    ),
    st.booleans(),
    st.integers(0, 3),
)
def test_queries_without_relevant_counted_as_a_plain_count(rows, grouped, seed):
    """Grouped or interleaved qrels, queries in file order or shuffled: the warning
    counts the queries without a grade >= 1."""
    from assay.judgments._build import assemble
    from assay.judgments.trec import queries_from_qrels

    if grouped:
        rows = sorted(rows, key=lambda r: r[0])
    data = "".join(f"{q} 0 d{i} {g}\n" for i, (q, g) in enumerate(rows)).encode()
    log = ProblemLog("qrels")
    qrels = parse_trec_qrels(data, log)
    frame, _ = queries_from_qrels(qrels, log, None, None, text_required=False)
    if seed:
        frame = frame.sample(frac=1, random_state=seed)
    js = assemble(frame, qrels, name="x", path=None, format="trec", unmarked_no_answer=True)
    expected = len({q for q, _ in rows} - {q for q, g in rows if g >= 1})
    counts = [w for w in js.warnings if "no relevant doc" in w]
    if expected:
        assert len(counts) == 1 and counts[0].startswith(f"{expected} queries ")
    else:
        assert counts == []
    assert list(js.queries.index) == list(frame["query_id"])
