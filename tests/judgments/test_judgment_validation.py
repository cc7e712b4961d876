"""One test per validation rule: exit code 2, and the file, line, field and message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.core.errors import MAX_PROBLEMS, InputError
from assay.judgments import load_judgments

GOOD = '{"query_id": "q1", "query": "hello", "relevant": {"d1": 1}}'


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``assay`` in process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def jl(**obj: object) -> str:
    base: dict[str, object] = {"query_id": "q2", "query": "world", "relevant": {"d2": 1}}
    base.update(obj)
    return json.dumps({k: v for k, v in base.items() if v is not ...})


# (id, file name, content, line, field, message)
CASES = [
    ("jsonl-blank", "a.jsonl", f"{GOOD}\n\n{jl()}\n", 2, None, "blank line"),
    ("trec-blank", "q.txt", "1 0 d1 1\n1 0 d2 0\n\n2 0 d3 1\n", 3, None, "blank line"),
    (
        "json-french-empty-text",
        "a.json",
        '[\n  {"requête": "", "pertinents": ["d1"]}\n]',
        2,
        "requête",
        "empty query text",
    ),
    (
        "csv-blank",
        "q.csv",
        "question_id,language,question,expected_id,note\nq1,en,a b,D1,x\n\nq2,en,c,D2,y\n",
        3,
        None,
        "blank line",
    ),
    ("jsonl-malformed", "a.jsonl", f'{GOOD}\n{{"query_id": "q2",\n', 2, None, "malformed JSON"),
    (
        "jsonl-missing-relevant",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant=...)}\n",
        2,
        "relevant",
        "missing key 'relevant'",
    ),
    (
        "jsonl-missing-id",
        "a.jsonl",
        f"{GOOD}\n{jl(query_id=...)}\n",
        2,
        "query_id",
        "missing key 'query_id'",
    ),
    (
        "jsonl-missing-query",
        "a.jsonl",
        f"{GOOD}\n{jl(query=...)}\n",
        2,
        "query",
        "missing key 'query'",
    ),
    (
        "jsonl-duplicate-id",
        "a.jsonl",
        f"{GOOD}\n{jl()}\n{jl()}\n",
        3,
        "query_id",
        "duplicate query_id 'q2' (first seen on line 2)",
    ),
    ("jsonl-empty-text", "a.jsonl", f"{GOOD}\n{jl(query='  ')}\n", 2, "query", "empty query text"),
    (
        "jsonl-grade-float",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant={'d2': 1.0})}\n",
        2,
        "relevant",
        "grade 1.0 of doc 'd2' is not a non-negative integer",
    ),
    (
        "jsonl-grade-bool",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant={'d2': True})}\n",
        2,
        "relevant",
        "grade True",
    ),
    (
        "jsonl-grade-string",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant={'d2': '1'})}\n",
        2,
        "relevant",
        "grade '1'",
    ),
    (
        "jsonl-grade-negative",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant={'d2': -1})}\n",
        2,
        "relevant",
        "grade -1",
    ),
    (
        "jsonl-source",
        "a.jsonl",
        f"{GOOD}\n{jl(source='crowd')}\n",
        2,
        "source",
        "invalid source 'crowd'",
    ),
    (
        "jsonl-no-positive",
        "a.jsonl",
        f"{GOOD}\n{jl(relevant={'d2': 0})}\n",
        2,
        "relevant",
        "query 'q2' has no relevant doc",
    ),
    (
        "jsonl-no-answer-not-bool",
        "a.jsonl",
        f"{GOOD}\n{jl(no_answer='yes')}\n",
        2,
        "no_answer",
        "no_answer must be true or false",
    ),
    (
        "jsonl-no-answer-with-positive",
        "a.jsonl",
        f"{GOOD}\n{jl(no_answer=True)}\n",
        2,
        "no_answer",
        "marked no-answer but has a relevant doc",
    ),
    ("jsonl-empty-file", "a.jsonl", "\n", None, None, "empty file"),
    (
        "json-no-positive",
        "a.json",
        '[\n  {"query": "a", "relevant": ["d1"]},\n  {"query": "b",\n   "relevant": []}\n]',
        3,
        "relevant",
        "query 'q2' has no relevant doc",
    ),
    (
        "json-malformed",
        "a.json",
        '[\n  {"query": "a", "relevant": ["d1"]},\n  {"query": }\n]',
        3,
        None,
        "malformed JSON",
    ),
    (
        "json-grade-string",
        "a.json",
        '[\n  {"query": "a", "relevant": ["d1"]},\n\n  {"requête": "b",\n'
        ' "pertinents": {"d": "2"}}]',
        4,
        "pertinents",
        "grade '2'",
    ),
    (
        "json-duplicate-doc",
        "a.json",
        '[{"query": "a",\n "relevant": ["d1", "d1"]}]',
        1,
        "relevant",
        "duplicate judgment of doc 'd1'",
    ),
    ("json-empty-file", "a.json", "  \n", None, None, "empty file"),
    ("json-not-a-list", "a.json", '{"query": "a"}', 1, None, "expected a JSON list"),
    (
        "csv-missing-column",
        "a.csv",
        "question_id,question\nq1,a\n",
        1,
        "expected_id",
        "missing column 'expected_id'",
    ),
    (
        "csv-duplicate-id",
        "a.csv",
        "question_id,question,expected_id\nq1,a,d\nq1,b,d\n",
        3,
        "question_id",
        "duplicate query_id 'q1' (first seen on line 2)",
    ),
    (
        "csv-empty-question",
        "a.csv",
        "question_id,question,expected_id\nq1,,d\n",
        2,
        "question",
        "empty query text",
    ),
    (
        "csv-empty-expected",
        "a.csv",
        "question_id,question,expected_id\nq1,a,\n",
        2,
        "expected_id",
        "empty expected_id",
    ),
    (
        "csv-field-count",
        "a.csv",
        "question_id,question,expected_id\nq1,a,b,c\n",
        2,
        None,
        "expected 3 fields, found 4",
    ),
    (
        "csv-duplicate-doc",
        "a.csv",
        "question_id,question,expected_id\nq1,a,d1;d1\n",
        2,
        "expected_id",
        "duplicate judgment of doc 'd1'",
    ),
    (
        "csv-source",
        "a.csv",
        "question_id,question,expected_id,source\nq1,a,d1,llm\n",
        2,
        "source",
        "invalid source 'llm'",
    ),
    ("csv-empty-file", "a.csv", "", None, None, "empty file"),
    (
        "trec-float-grade",
        "q.txt",
        "1 0 d1 1\n1 0 d2 1.0\n",
        2,
        "grade",
        "grade '1.0' is not a whole number",
    ),
    ("trec-field-count", "q.txt", "1 0 d1 1\n1 0 d2\n", 2, None, "expected 4 fields"),
    (
        "trec-duplicate",
        "q.txt",
        "1 0 d1 1\n# c\n1 0 d1 2\n",
        3,
        "doc_id",
        "duplicate judgment of doc 'd1' for query '1' (first seen on line 1)",
    ),
    ("trec-empty-file", "q.txt", "", None, None, "empty file"),
    ("trec-only-comments", "q.txt", "# nothing\n", None, None, "empty file"),
]


@pytest.mark.parametrize(
    ("fname", "content", "line", "field", "message"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_validation_rule(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fname: str,
    content: str,
    line: int | None,
    field: str | None,
    message: str,
) -> None:
    path = tmp_path / fname
    path.write_text(content, encoding="utf-8")
    args = ["validate", str(path)]
    if fname == "q.txt":
        args += ["--judgments-format", "trec"]
    code, _, err = run_cli(args, capsys)
    assert code == 2
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    tag = f"[{field}] " if field else ""
    assert f"{where}{tag}" in err, err
    assert message in err
    assert "Traceback" not in err
    with pytest.raises(InputError) as exc:
        load_judgments(path, "trec" if fname == "q.txt" else None)
    problem = exc.value.problems[0]
    assert (problem.path, problem.line, problem.field) == (str(path), line, field)
    assert problem.hint  # every problem says how to fix it


def test_undecodable_bytes_name_the_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + b'{"query_id": "q\xff"}\n')
    code, _, err = run_cli(["validate", str(path)], capsys)
    assert code == 2 and f"{path}:2: bytes that are not UTF-8" in err


@pytest.mark.parametrize(
    ("fname", "content"),
    [
        ("a.jsonl", f"{GOOD}\n{jl()}\n"),
        ("a.csv", "question_id,question,expected_id,note\nq1,hello,d1,x; y\nq2,world,NONE,\n"),
        (
            "a.json",
            '[\n {"query": "a", "relevant": ["d1"]},\n {"query": "b", "relevant": ["d2"]}\n]',
        ),
        ("q.txt", "# c\n1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"),
    ],
)
def test_bom_and_crlf_are_transparent(tmp_path: Path, fname: str, content: str) -> None:
    plain = tmp_path / ("plain-" + fname)
    plain.write_text(content, encoding="utf-8")
    bom = tmp_path / ("bom-" + fname)
    bom.write_bytes(b"\xef\xbb\xbf" + content.encode())
    crlf = tmp_path / ("crlf-" + fname)
    crlf.write_bytes(content.replace("\n", "\r\n").encode())
    both = tmp_path / ("both-" + fname)
    both.write_bytes(b"\xef\xbb\xbf" + content.replace("\n", "\r\n").encode())
    fmt = "trec" if fname == "q.txt" else None
    ref = load_judgments(plain, fmt)
    for p in (bom, crlf, both):
        js = load_judgments(p, fmt)
        assert js.version == ref.version
        assert js.query_ids == ref.query_ids


def test_crlf_error_lines_are_physical(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(f"{GOOD}\r\n{GOOD}\r\n".encode())
    with pytest.raises(InputError) as exc:
        load_judgments(path)
    assert exc.value.problems[0].line == 2


def test_unknown_corpus_doc_ids(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"doc_id": "d1", "text": "a"}\n{"doc_id": "d2", "text": "b"}\n')
    path = tmp_path / "a.jsonl"
    path.write_text(f"{GOOD}\n{jl(relevant={'d3': 1})}\n")
    code, _, err = run_cli(["validate", str(path), "--corpus", str(corpus)], capsys)
    assert code == 2
    assert f"{path}:2: [relevant] doc id 'd3' (query 'q2') is not in the corpus" in err
    trec = tmp_path / "q.txt"
    trec.write_text("1 0 d1 1\n1 0 d9 0\n")
    with pytest.raises(InputError) as exc:
        load_judgments(trec, corpus_ids={"d1", "d2"})
    assert (exc.value.problems[0].line, exc.value.problems[0].field) == (2, "doc_id")


def test_problems_stop_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("".join(f"1 0 d{i} x\n" for i in range(MAX_PROBLEMS + 10)))
    with pytest.raises(InputError) as exc:
        load_judgments(path, "trec")
    assert len(exc.value.problems) == MAX_PROBLEMS and exc.value.truncated
    assert "stopped after" in str(exc.value)


def test_trec_query_missing_from_queries_file(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n")
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tfirst\n1\tagain\n")
    with pytest.raises(InputError) as exc:
        load_judgments(qrels, "trec", queries=topics)
    found = {(p.path, p.line) for p in exc.value.problems}
    assert (str(topics), 2) in found  # duplicate id in the queries file
    messages = str(exc.value)
    assert "duplicate query_id '1' (first seen on line 1)" in messages


def test_trec_query_absent_from_topics(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n")
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tfirst\n")
    with pytest.raises(InputError) as exc:
        load_judgments(qrels, "trec", queries=topics)
    p = exc.value.problems[0]
    assert (p.path, p.line, p.field) == (str(qrels), 2, "query_id")
    assert "query '2' is not in the queries file" in p.message


def _beir(tmp_path: Path, qrels: str) -> Path:
    root = tmp_path / "mini"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text('{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"}\n')
    (root / "queries.jsonl").write_text('{"_id": "1", "text": "x"}\n{"_id": "2", "text": "y"}\n')
    (root / "qrels" / "test.tsv").write_text(qrels)
    return root


def test_beir_doc_not_in_corpus_and_no_answer_warning(tmp_path: Path, capsys) -> None:
    root = _beir(tmp_path, "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td7\t1\n")
    code, _, err = run_cli(["validate", str(root)], capsys)
    assert code == 2
    assert f"{root / 'qrels' / 'test.tsv'}:3: [corpus-id] doc id 'd7'" in err
    root2 = _beir(tmp_path / "b", "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\t0\n")
    js = load_judgments(root2)
    assert js.no_answer_ids == [] and len(js.warnings) == 1 and "scored" in js.warnings[0]


def test_beir_missing_header(tmp_path: Path) -> None:
    root = _beir(tmp_path, "1\td1\t1\n")
    with pytest.raises(InputError) as exc:
        load_judgments(root)
    p = exc.value.problems[0]
    assert (p.path, p.line) == (str(root / "qrels" / "test.tsv"), 1)
    assert "expected the header" in p.message


def test_fast_reader_names_physical_lines(tmp_path: Path) -> None:
    lines = [f"q{i // 5} 0 d{i} {i % 3}\n" for i in range(3000)]
    lines[1499] = "q0 0 d1 2\n"  # repeats line 2's (query, doc) pair
    path = tmp_path / "big.txt"
    path.write_text("".join(lines))
    with pytest.raises(InputError) as exc:
        load_judgments(path, "trec")
    p = exc.value.problems[0]
    assert (p.line, p.field) == (1500, "doc_id")
    assert "first seen on line 2" in p.message


def test_an_invalid_grade_is_reported_once(tmp_path: Path) -> None:
    """The grade error explains the line; no second 'no relevant doc' error for it."""
    path = tmp_path / "g.jsonl"
    path.write_text('{"query_id": "q1", "query": "a", "relevant": {"d1": 1.5}}\n', "utf-8")
    with pytest.raises(InputError) as exc:
        load_judgments(path)
    assert [(p.line, p.field) for p in exc.value.problems] == [(1, "relevant")]
    assert "not a non-negative integer" in str(exc.value)
