"""The system an answers result names: from the cases, from --system-name, in history."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_answers import case, run, write_cases

from assay.answers import load_cases, score_cases
from assay.answers.result import AnswersResult


def test_shared_system_names_the_result(tmp_path: Path) -> None:
    cases = [case(system="my_rag:answer"), case(case_id="c02", system="my_rag:answer")]
    result = score_cases(load_cases(write_cases(tmp_path / "a.jsonl", cases)))
    assert result.system_name == "my_rag:answer"
    assert [row["system"] for row in result.per_case] == ["my_rag:answer"] * 2
    assert "system" not in result.per_case[0]["metadata"]


def test_mixed_or_missing_systems_name_nothing(tmp_path: Path) -> None:
    mixed = [case(system="a:f"), case(case_id="c02", system="b:f")]
    partial = [case(system="a:f"), case(case_id="c02")]
    assert score_cases(load_cases(write_cases(tmp_path / "m.jsonl", mixed))).system_name is None
    assert score_cases(load_cases(write_cases(tmp_path / "p.jsonl", partial))).system_name is None
    assert score_cases(load_cases(write_cases(tmp_path / "n.jsonl", [case()]))).system_name is None


def test_explicit_name_wins(tmp_path: Path) -> None:
    cases = load_cases(write_cases(tmp_path / "a.jsonl", [case(system="a:f")]))
    assert score_cases(cases, system_name="prod-rag").system_name == "prod-rag"


def test_cli_system_name_in_result_and_reports(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / "cases.jsonl", [case()])
    out = tmp_path / "result.json"
    code, _, err = run(["answers", str(path), "--system-name", "prod-rag", "-o", str(out)], capsys)
    assert code == 0, err
    assert AnswersResult.from_file(out).system_name == "prod-rag"
    code, md, _ = run(["answers", str(path), "--system-name", "prod-rag", "-f", "markdown"], capsys)
    assert code == 0 and md.startswith("## Grounded answers: `prod-rag` on cases")
    code, _, err = run(["answers", str(path), "--system-name", " "], capsys)
    assert code == 2 and "--system-name must not be empty" in err


def test_old_result_files_without_system_name_still_read(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / "cases.jsonl", [case()])
    out = tmp_path / "result.json"
    assert run(["answers", str(path), "-o", str(out)], capsys)[0] == 0
    payload = json.loads(out.read_text(encoding="utf-8"))
    payload.pop("system_name")
    out.write_text(json.dumps(payload), encoding="utf-8")
    assert AnswersResult.from_file(out).system_name is None


def test_history_finds_answers_by_system(tmp_path: Path, capsys) -> None:
    store = f"sqlite:///{tmp_path / 'history.db'}"
    named = write_cases(tmp_path / "named.jsonl", [case(system="my_rag:answer")])
    other = write_cases(tmp_path / "other.jsonl", [case()])
    for argv in (
        ["answers", str(named), "-f", "json", "--record", "--store", store],
        ["answers", str(other), "-f", "json", "--record", "--store", store, "--system-name", "b"],
    ):
        code, _, err = run(argv, capsys)
        assert code == 0, err
    history = ["history", "--kind", "answers", "-f", "json", "--store", store]
    for name, expected in (("my_rag:answer", ["named"]), ("b", ["other"]), ("nobody", [])):
        code, out, err = run([*history, "--system", name], capsys)
        assert code == 0, err
        rows = json.loads(out)["rows"]
        assert [(r["system"], r["judgments_name"]) for r in rows] == [(name, e) for e in expected]
