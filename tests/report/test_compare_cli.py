"""``assay compare`` end to end on small run files and result files."""

from __future__ import annotations

import json

import pytest

import assay
from assay.cli.app import main

QRELS = "\n".join(f"q{i} 0 d{i} 1" for i in range(12)) + "\n"


def _run(path, name: str, rank_of_rel: int) -> None:
    lines = []
    for i in range(12):
        docs = [f"x{i}_{j}" for j in range(9)]
        docs.insert(rank_of_rel if i % 4 else 0, f"d{i}")
        lines += [f"q{i} Q0 {d} {r + 1} {100 - r} {name}" for r, d in enumerate(docs)]
    path.write_text("\n".join(lines) + "\n")


def _main(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(args)
    return exc.value.code


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    _run(tmp_path / "good.trec", "good", 0)
    _run(tmp_path / "bad.trec", "bad", 6)
    return tmp_path, qrels


def test_compare_json_says_worse(files, capsys) -> None:
    tmp, qrels = files
    code = _main(
        [
            "compare",
            str(qrels),
            str(tmp / "good.trec"),
            str(tmp / "bad.trec"),
            "-m",
            "RR",
            "--format",
            "json",
            "--test",
            "t",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    (c,) = data["comparisons"]
    assert data["baseline"] == "good" and c["candidate"] == "bad"
    assert c["verdict"] == "worse" and c["n"] == 12 and c["losses"] == 9


def test_result_file_accepted_and_html_written(files, capsys) -> None:
    from assay.procedures.evaluation import evaluate

    tmp, qrels = files
    res = evaluate(
        qrels, tmp / "good.trec", ["RR"], evaluation=assay.EvaluationOptions(name="good-result")
    )
    (tmp / "good.json").write_text(res.to_json())
    out = tmp / "cmp.html"
    code = _main(
        [
            "compare",
            str(qrels),
            str(tmp / "good.json"),
            str(tmp / "bad.trec"),
            "-m",
            "RR",
            "--format",
            "html",
            "-o",
            str(out),
            "--baseline",
            "bad",
        ]
    )
    assert code == 0
    page = out.read_text()
    assert "good-result" in page and "Plotly.newPlot" in page


def test_usage_errors_exit_2(files, capsys) -> None:
    tmp, qrels = files
    assert _main(["compare", str(qrels), str(tmp / "good.trec")]) == 2
    assert "at least two" in capsys.readouterr().err
    assert (
        _main(
            [
                "compare",
                str(qrels),
                str(tmp / "good.trec"),
                str(tmp / "bad.trec"),
                "--test",
                "anova",
            ]
        )
        == 2
    )
