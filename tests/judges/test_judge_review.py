"""Review samples, review files in `judge agree`, sources kept apart, label files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.errors import InputError, UsageError
from assay.judges.labels import read_labels
from assay.judges.sample import review_sample, write_review
from assay.procedures.agreement import agreement


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def _labels(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def model_labels(tmp_path: Path) -> Path:
    rows = [
        {"query_id": f"q{q}", "doc_id": f"d{d}", "grade": (q + d) % 4, "source": "model",
         "assessor": "m1", "query": f"query {q}"}
        for q in range(10) for d in range(10)
    ]  # fmt: skip
    return _labels(tmp_path / "model.jsonl", rows)


def test_sample_is_stratified_reproducible_and_hides_grades(model_labels: Path) -> None:
    a = review_sample(model_labels, fraction=0.2, stratify="grade", seed=7)
    b = review_sample(model_labels, fraction=0.2, stratify="grade", seed=7)
    c = review_sample(model_labels, fraction=0.2, stratify="grade", seed=8)
    assert a == b and a != c
    assert len(a) == 20  # strata of 25, 26, 25, 24 labels: 5 of each
    grades = {
        (r["query_id"], r["doc_id"]): r for r in read_labels(model_labels).frame.to_dict("records")
    }
    per_grade = {}
    for line in a:
        per_grade.setdefault(grades[line["query_id"], line["doc_id"]]["grade"], 0)
        per_grade[grades[line["query_id"], line["doc_id"]]["grade"]] += 1
    assert per_grade == {0: 5, 1: 5, 2: 5, 3: 5}
    assert all("model_grade" not in line and line["reviewer_grade"] is None for line in a)
    shown = review_sample(model_labels, fraction=0.2, seed=7, show_grades=True)
    assert all(isinstance(line["model_grade"], int) for line in shown)


def test_sample_ignores_file_order(model_labels: Path, tmp_path: Path) -> None:
    lines = model_labels.read_text().splitlines()
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("\n".join(reversed(lines)) + "\n")
    assert review_sample(model_labels, seed=3) == review_sample(shuffled, seed=3)


def test_review_file_feeds_agree_and_disagreements(model_labels: Path, tmp_path: Path) -> None:
    lines = review_sample(model_labels, fraction=0.2, seed=7)
    truth = {
        (r["query_id"], r["doc_id"]): r["grade"]
        for r in read_labels(model_labels).frame.to_dict("records")
    }
    for i, line in enumerate(lines):
        g = truth[line["query_id"], line["doc_id"]]
        if i < 15:
            line["reviewer_grade"] = g if i % 3 else min(3, g + 1)
            line["reason"] = "" if i % 3 else "the passage answers only part"
    review = tmp_path / "review.jsonl"
    write_review(lines, review)
    table = read_labels(review)
    assert table.kind == "review" and table.pending == 5 and len(table) == 15
    assert table.sources() == {"human": 15}
    proc = assay(
        "judge", "agree", str(review), str(model_labels), "--disagreements", "dis.jsonl",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    differ = [json.loads(x) for x in (tmp_path / "dis.jsonl").read_text().splitlines()]
    exact = sum(1 for i in range(15) if i % 3) + sum(
        1 for i in range(0, 15, 3) if truth[lines[i]["query_id"], lines[i]["doc_id"]] == 3
    )
    assert out["n"] == 15 and out["accuracy"] == pytest.approx(exact / 15)
    assert len(differ) == 15 - exact
    assert all(d["reason"] == "the passage answers only part" for d in differ)
    assert out["reference"]["pending_review"] == 5


def test_cli_sample_writes_the_file(model_labels: Path, tmp_path: Path) -> None:
    proc = assay(
        "judge", "sample", str(model_labels), "--fraction", "0.1", "--seed", "7", "-o", "r.jsonl",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # strata of 25, 26, 25 and 24 labels: 2.5, 2.6, 2.5 round to 3, 2.4 to 2
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 11
    assert "grades hidden" in proc.stdout


def test_mixed_sources_for_one_pair_are_refused_unless_told(tmp_path: Path) -> None:
    mixed = _labels(
        tmp_path / "mixed.jsonl",
        [
            {"query_id": "q1", "doc_id": "d1", "grade": 2, "source": "human"},
            {"query_id": "q1", "doc_id": "d1", "grade": 0, "source": "model"},
            {"query_id": "q1", "doc_id": "d2", "grade": 1, "source": "model"},
        ],
    )
    with pytest.raises(UsageError, match=r"several sources.*`prefer`"):
        read_labels(mixed)
    human_first = read_labels(mixed, prefer="human")
    assert human_first.frame["grade"].tolist() == [2, 1]
    assert human_first.sources() == {"human": 1, "model": 1}
    assert read_labels(mixed, prefer="model").frame["grade"].tolist() == [0, 1]


def test_bad_label_lines_name_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"query_id": "q1", "doc_id": "d1", "grade": 1}\n'
        '{"query_id": "q1", "doc_id": "d2", "grade": "high"}\n'
        '{"query_id": "q1", "doc_id": "d1", "grade": 0}\n'
        '{"query_id": "q2", "doc_id": "d1", "grade": 1, "source": "robot"}\n'
    )
    with pytest.raises(InputError) as err:
        read_labels(bad)
    text = str(err.value)
    assert "bad.jsonl:2: [grade]" in text
    assert "bad.jsonl:3: [doc_id] duplicate pair ('q1', 'd1') (first seen on line 1)" in text
    assert "bad.jsonl:4: [source]" in text


def test_agree_by_language_and_query_class(tmp_path: Path) -> None:
    ref = tmp_path / "ref.jsonl"
    ref.write_text(
        '{"query_id": "a", "query": "x", "language": "en", "query_class": "lookup",'
        ' "relevant": {"d1": 2, "d2": 0}}\n'
        '{"query_id": "b", "query": "y", "language": "fr", "query_class": "lookup;compare",'
        ' "relevant": {"d1": 1, "d3": 3}}\n'
    )
    cand = _labels(
        tmp_path / "cand.jsonl",
        [
            {"query_id": "a", "doc_id": "d1", "grade": 2, "source": "model"},
            {"query_id": "a", "doc_id": "d2", "grade": 1, "source": "model"},
            {"query_id": "b", "doc_id": "d1", "grade": 1, "source": "model"},
            {"query_id": "b", "doc_id": "d3", "grade": 3, "source": "model"},
            {"query_id": "b", "doc_id": "d9", "grade": 3, "source": "model"},
        ],
    )
    r = agreement(ref, cand)
    assert r.n == 4 and r.only_candidate == 1 and r.accuracy == pytest.approx(0.75)
    assert r.groups["language"]["en"].accuracy == pytest.approx(0.5)
    assert r.groups["language"]["fr"].accuracy == pytest.approx(1.0)
    assert r.groups["query_class"]["lookup"].n == 4
    assert r.groups["query_class"]["compare"].n == 2
    with pytest.raises(UsageError, match="no field"):
        agreement(ref, cand, by=["region"])


def test_evaluate_reads_model_labels_and_refuses_mixed_sources(tmp_path: Path) -> None:
    labels = _labels(
        tmp_path / "model.jsonl",
        [
            {"query_id": "q1", "doc_id": "d1", "grade": 2, "source": "model", "query": "a"},
            {"query_id": "q1", "doc_id": "d2", "grade": 0, "source": "model", "query": "a"},
            {"query_id": "q2", "doc_id": "d3", "grade": 0, "source": "model", "query": "b"},
        ],
    )
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d3 1 1.0 r\n")
    proc = assay(
        "evaluate", str(labels), str(run), "-m", "RR", "-f", "json", "--no-record", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["aggregate"]["RR"] == pytest.approx(0.25)  # q1: 1/2, q2: no relevant doc
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        labels.read_text()
        + json.dumps({"query_id": "q1", "doc_id": "d1", "grade": 0, "source": "human"})
        + "\n"
    )
    proc = assay("evaluate", str(mixed), str(run), "--no-record", cwd=tmp_path)
    assert (
        proc.returncode == 2 and "several sources" in proc.stderr and "Traceback" not in proc.stderr
    )


def test_agree_prefer_resolves_mixed_files(tmp_path: Path) -> None:
    mixed = _labels(
        tmp_path / "mixed.jsonl",
        [
            {"query_id": "q1", "doc_id": "d1", "grade": 2, "source": "human"},
            {"query_id": "q1", "doc_id": "d1", "grade": 0, "source": "model"},
            {"query_id": "q1", "doc_id": "d2", "grade": 1, "source": "model"},
        ],
    )
    people = _labels(
        tmp_path / "people.jsonl",
        [
            {"query_id": "q1", "doc_id": "d1", "grade": 2, "source": "human"},
            {"query_id": "q1", "doc_id": "d2", "grade": 1, "source": "human"},
        ],
    )
    with pytest.raises(UsageError):
        agreement(people, mixed)
    assert agreement(people, mixed, prefer="human").accuracy == 1.0
    assert agreement(people, mixed, prefer="model").accuracy == 0.5
