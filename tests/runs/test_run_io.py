"""Run file reading and writing: formats, round trips and every error rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.core.errors import InputError, UsageError
from assay.runs.io import load_run, write_run
from assay.runs.models import Run


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def problems(path: Path, fmt: str | None = None) -> list:
    with pytest.raises(InputError) as exc:
        load_run(path, format=fmt)
    return exc.value.problems


GOOD = "q1 Q0 d1 1 2.5 tagA\nq1 Q0 d2 2 1.5 tagA\nq2 Q0 d1 1 0.5 tagA\n"


def test_trec_basic_and_name(tmp_path: Path) -> None:
    run = load_run(write(tmp_path, "r.trec", GOOD))
    assert run.name == "tagA" and run.has_scores and len(run) == 3
    assert run.to_dict()["q1"] == [("d1", 2.5), ("d2", 1.5)]
    assert load_run(write(tmp_path, "r2.trec", GOOD), name="x").name == "x"


def test_trec_whitespace_bom_crlf(tmp_path: Path) -> None:
    messy = (
        "\ufeffq1\tQ0\td1\t1\t  2.5\ttagA\r\n"
        "  q1  Q0 d2 2   1.5 tagA  \r\nq2 Q0 d1 1 0.5 tagA\r\n\r\n"
    )
    run = load_run(write(tmp_path, "m.txt", messy))
    ref = load_run(write(tmp_path, "r.trec", GOOD))
    assert run.to_dict() == ref.to_dict()


def test_trec_extra_trailing_fields_ignored(tmp_path: Path) -> None:
    run = load_run(write(tmp_path, "r.trec", "q1 Q0 d1 1 2.5 tag more junk\nq1 Q0 d2 2 1 tag\n"))
    assert run.to_dict()["q1"] == [("d1", 2.5), ("d2", 1.0)]


@pytest.mark.parametrize(
    ("body", "line", "needle"),
    [
        ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2\n", 2, "expected 6 fields, found 4"),
        ("q1 Q0 d1 one 2.5 t\n", 1, "rank 'one' is not a number"),
        ("q1 Q0 d1 1 high t\n", 1, "score 'high' is not a number"),
        ("q1 Q0 d1 1 nan t\n", 1, "score of 'd1' is nan"),
        ("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 inf t\n", 2, "score of 'd2' is inf"),
        ("q1 Q0 d1 1 2 t\n\nq1 Q0 d2 2 1 t\n", 2, "blank line"),
    ],
)
def test_trec_errors(tmp_path: Path, body: str, line: int, needle: str) -> None:
    found = problems(write(tmp_path, "bad.trec", body))
    assert found[0].line == line and needle in found[0].message
    assert found[0].hint


def test_trec_duplicate_doc_names_first_line(tmp_path: Path) -> None:
    body = "q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n"
    (p,) = problems(write(tmp_path, "dup.trec", body))
    assert p.line == 3 and "first seen on line 1" in p.message and p.field == "doc_id"


def test_trec_encoding_error(tmp_path: Path) -> None:
    (p,) = problems(write(tmp_path, "enc.trec", b"q1 Q0 d1 1 2 t\nq1 Q0 d\xff2 2 1 t\n"))
    assert p.line == 2 and "not UTF-8" in p.message


def test_errors_collected_up_to_limit(tmp_path: Path) -> None:
    body = "".join(f"q{i} Q0 d 1 x t\n" for i in range(30))
    with pytest.raises(InputError) as exc:
        load_run(write(tmp_path, "many.trec", body))
    assert len(exc.value.problems) == 20 and exc.value.truncated


@pytest.mark.parametrize("fmt", ["trec", "jsonl"])
def test_empty_file(tmp_path: Path, fmt: str) -> None:
    (p,) = problems(write(tmp_path, f"e.{fmt}", "\n"), fmt)
    assert "empty" in p.message and p.line is None


def test_missing_file_and_bad_format(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load_run(tmp_path / "nope.trec")
    with pytest.raises(UsageError):
        load_run(write(tmp_path, "r.trec", GOOD), format="csv")


JSONL = (
    '{"query_id": "q1", "results": [{"doc_id": "d1", "score": 2.5}, '
    '{"doc_id": "d2", "score": 1.5}]}\n'
    '{"query_id": "q2", "results": [{"doc_id": "d1", "score": 0.5}]}\n'
)


def test_jsonl_scored_equals_trec(tmp_path: Path) -> None:
    a = load_run(write(tmp_path, "r.jsonl", "\ufeff" + JSONL.replace("\n", "\r\n")))
    b = load_run(write(tmp_path, "r.trec", GOOD))
    assert a.to_dict() == b.to_dict() and a.name == "r"


def test_jsonl_unscored_keeps_order(tmp_path: Path) -> None:
    run = load_run(write(tmp_path, "u.jsonl", '{"query_id": "q1", "results": ["z", "a", "m"]}\n'))
    assert not run.has_scores
    assert [d for d, _ in run.to_dict()["q1"]] == ["z", "a", "m"]


@pytest.mark.parametrize(
    ("body", "line", "needle"),
    [
        (
            '{"query_id": "q1", "results": ["a"]}\n\n{"query_id": "q2", "results": ["b"]}\n',
            2,
            "blank line",
        ),
        ('{"query_id": "q1", "results": ["a"]\n', 1, "malformed JSON"),
        (
            '{"query_id": "q1", "results": ["a"]}\n{"query_id": "q1", "results": ["b"]}\n',
            2,
            "duplicate query_id 'q1' (first seen on line 1)",
        ),
        (
            '{"query_id": "q1", "results": ["a", {"doc_id": "b", "score": 1}]}\n',
            1,
            "mixes results with and without scores",
        ),
        ('{"query_id": "q1", "results": ["a", "a"]}\n', 1, "duplicate doc_id 'a'"),
        (
            '{"query_id": "q1", "results": [{"doc_id": "a", "score": NaN}]}\n',
            1,
            "score of 'a' is nan",
        ),
        (b'{"query_id": "q\xff1", "results": []}\n', 1, "not UTF-8"),
    ],
)
def test_jsonl_errors(tmp_path: Path, body, line: int, needle: str) -> None:
    found = problems(write(tmp_path, "bad.jsonl", body))
    assert found[0].line == line and needle in found[0].message, found


@pytest.mark.parametrize("fmt", ["trec", "jsonl"])
def test_round_trip(tmp_path: Path, fmt: str) -> None:
    rng = np.random.default_rng(0)
    ranking = {
        f"q{q}": [(f"d{d}", float(rng.integers(0, 3)) + 0.1) for d in rng.permutation(20)[:8]]
        for q in range(5)
    }
    run = Run.from_dict(ranking, name="sys1")
    out = tmp_path / f"out.{fmt}"
    write_run(run, out, format=fmt)
    back = load_run(out)
    assert back.to_dict() == run.to_dict()
    assert not list(tmp_path.glob(".*tmp"))  # no temp file left behind


def test_write_unscored_trec_keeps_order(tmp_path: Path) -> None:
    run = Run.from_dict({"q": ["z", "a", "m"]})
    write_run(run, tmp_path / "u.trec")
    assert [d for d, _ in load_run(tmp_path / "u.trec").to_dict()["q"]] == ["z", "a", "m"]


def test_real_trec_eval_runs(shared_data: Path) -> None:
    te = shared_data / "trec_eval_tests"
    run = load_run(te / "results.test")
    assert len(run) == 1500 and run.name == "STANDARD"
    comment = load_run(te / "results.comment.test")
    assert comment.frame["doc_id"].astype(str).str.contains("#").any()


def test_every_kind_of_problem_is_reported_in_one_pass(tmp_path: Path) -> None:
    """A malformed line does not hide duplicates or non-finite scores elsewhere."""
    from assay.core.errors import InputError
    from assay.runs.io import load_run

    path = tmp_path / "mixed.trec"
    path.write_text(
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq1 Q0 d3 3 nan t\nq1 Q0 d4 4\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        load_run(path)
    found = {(p.line, p.field) for p in info.value.problems}
    assert found == {(2, "doc_id"), (3, "score"), (4, None)}
    assert "first seen on line 1" in str(info.value)


def test_trec_run_keeps_doc_ids_as_strings_in_file_order(tmp_path: Path) -> None:
    """Doc ids are not encoded on load (no dictionary of ten million ids): the frame
    holds them as strings, row by row; query ids are categories in first-seen order."""
    from assay.runs.io import load_run

    lines = [
        f"q{q} Q0 d{(q * 7 + r * 3) % 23} {r + 1} {10 - r * 0.5} t"
        for q in (3, 1, 2, 0, 5, 4)
        for r in range(9)
    ]
    path = tmp_path / "run.trec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = load_run(path).frame
    assert frame["doc_id"].tolist() == [line.split()[2] for line in lines]
    assert str(frame["doc_id"].dtype) in {"str", "string"}
    cats = list(frame["query_id"].cat.categories.astype(str))
    assert cats == list(dict.fromkeys(line.split()[0] for line in lines))
    assert frame["score"].tolist() == [float(line.split()[4]) for line in lines]


def test_doc_id_hashes_computed_on_load_are_the_engines(tmp_path: Path) -> None:
    """The reader hashes the doc ids once; the engine finds those hashes, not new ones."""
    from assay.core import pairs
    from assay.runs.io import load_run

    path = tmp_path / "run.trec"
    path.write_text("".join(f"q1 Q0 d{i} {i + 1} {9 - i} t\n" for i in range(5)), encoding="utf-8")
    run = load_run(path)
    column = pairs.arrow_column(run.frame["doc_id"])
    assert column is pairs.arrow_column(run.frame["doc_id"].array)
    assert ("hashes", id(column)) in pairs._REMEMBERED  # hashed by the reader
    assert pairs.hashes(column) is pairs._REMEMBERED[("hashes", id(column))][1]
