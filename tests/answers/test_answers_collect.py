"""``assay answers --collect``: call a live function, write cases awaiting review."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers_answers import run

from assay.answers.collect import call_system, load_function
from assay.core.errors import UsageError


@pytest.fixture
def rag(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = data_dir / "answers"
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    sys.modules.pop("fake_rag", None)


def test_collect_writes_cases_ready_for_review(rag: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cases.jsonl"
    code, _, err = run(
        [
            "answers",
            "--collect",
            "--system",
            "fake_rag:answer",
            "--judgments",
            str(rag / "questions.jsonl"),
            "-o",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    assert "wrote 3 cases" in err and "2 claim citations await" in err
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [c["case_id"] for c in cases] == ["q01", "q11", "q15"]
    assert {c["system"] for c in cases} == {"fake_rag:answer"}
    assert [c["expected_status"] for c in cases] == ["answered", "answered", "declined"]
    assert cases[0]["expected_ids"] == ["FS_UNDERNOURISH_PCT"]  # grade 0 left out
    assert "expected_ids" not in cases[2]
    assert cases[1]["language"] == "fr"
    assert cases[0]["support"] == {
        "0": {"judgments": {"FS_UNDERNOURISH_PCT": None}, "judged_by": None}
    }
    assert cases[1]["response"]["claims"][0]["text"] == "The latest value is 5,1 % (fr)."
    # scoring before review reports every citation still to judge
    code, _, err = run(["answers", str(out)], capsys)
    assert code == 2
    assert (
        "cases.jsonl:1: [support.0] claim 0, citation 'FS_UNDERNOURISH_PCT': not yet judged" in err
    )


def test_collect_accepts_tuple_and_hits(rag: Path) -> None:
    response, ids = call_system(load_function("fake_rag:answer_tuple"), "x", {"query_id": "q"})
    assert response.status == "declined" and ids == ["LF_UNEMP_PCT"]


def test_collect_from_file_path(rag: Path) -> None:
    function = load_function(f"{rag / 'fake_rag.py'}:answer")
    response, ids = call_system(
        function, "how many people go hungry", {"query_id": "q01", "language": "en"}
    )
    assert response.status == "answered" and ids[0] == "FS_UNDERNOURISH_PCT"


def test_collect_rejects_bad_output(rag: Path) -> None:
    with pytest.raises(UsageError, match="query q9: the system returned str"):
        call_system(load_function("fake_rag:broken"), "x", {"query_id": "q9"})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fake_rag", "write module:function"),
        ("no_such_module_xyz:f", "cannot import"),
        ("fake_rag:missing", "has no function 'missing'"),
    ],
)
def test_bad_system_spec(rag: Path, spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_function(spec)


def test_collect_needs_its_options(tmp_path: Path, capsys) -> None:
    code, _, err = run(["answers", "--collect", "--system", "fake_rag:answer"], capsys)
    assert code == 2 and "--collect needs" in err


def _collect(rag: Path, out: Path, spec: str, capsys) -> tuple[int, str, str]:
    argv = ["answers", "--collect", "--system", spec]
    return run([*argv, "--judgments", str(rag / "questions.jsonl"), "-o", str(out)], capsys)


def test_collect_keeps_going_after_a_failure(rag: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cases.jsonl"
    code, _, err = _collect(rag, out, "fake_rag:flaky", capsys)
    assert code == 1
    assert "query q11: the system failed: RuntimeError: backend timed out" in err
    assert "wrote 2 cases" in err and "1 of 3 questions failed" in err
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [c["case_id"] for c in cases] == ["q01", "q15"]
    assert {c["system"] for c in cases} == {"fake_rag:flaky"}
    assert [p.name for p in tmp_path.iterdir()] == ["cases.jsonl"]  # no temporary left


def test_collect_cases_records_failures(rag: Path) -> None:
    from assay.answers.collect import collect_cases
    from assay.judgments.load import load_judgments

    done: list[str] = []
    collected = collect_cases(
        load_function("fake_rag:flaky"),
        load_judgments(rag / "questions.jsonl"),
        system="fake_rag:flaky",
        on_case=done.append,
    )
    assert done == ["q01", "q11", "q15"]  # progress advances on failures too
    assert [c["case_id"] for c in collected.cases] == ["q01", "q15"]
    assert [(f.query_id, f.error) for f in collected.failures] == [
        ("q11", "the system failed: RuntimeError: backend timed out")
    ]


def test_failed_collect_leaves_no_file(rag: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cases.jsonl"
    code, _, err = _collect(rag, out, "fake_rag:broken", capsys)
    assert code == 1 and "the system returned str" in err
    assert "3 of 3 questions failed; no case written" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_failed_collect_keeps_an_existing_file(rag: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cases.jsonl"
    out.write_text("earlier\n", encoding="utf-8")
    code, _, _ = _collect(rag, out, "fake_rag:broken", capsys)
    assert code == 1 and out.read_text(encoding="utf-8") == "earlier\n"


def test_collect_refuses_system_name(rag: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cases.jsonl"
    code, _, err = _collect(rag, out, "fake_rag:answer", capsys)
    assert code == 0, err
    argv = ["answers", "--collect", "--system", "fake_rag:answer", "--system-name", "x"]
    code, _, err = run([*argv, "--judgments", str(rag / "questions.jsonl"), "-o", str(out)], capsys)
    assert code == 2 and "--system-name names the system when scoring" in err
