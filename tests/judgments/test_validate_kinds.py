"""``assay validate`` tells answer cases, assay.toml files and result files apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.procedures.validation import KINDS, detect_kind, validate_path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "answers" / "cases.jsonl"
CONFIG = ROOT / "examples" / "statistics" / "assay.toml"
QUESTIONS = ROOT / "examples" / "statistics" / "questions.csv"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


@pytest.fixture(scope="module")
def result_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from helpers_synthetic import synthetic_result

    path = tmp_path_factory.mktemp("result") / "e.json"
    path.write_text(synthetic_result("s", {"RR": [0.5, 1.0]}).to_json(), encoding="utf-8")
    return path


def test_kinds_are_detected(result_file: Path) -> None:
    assert detect_kind(CASES) == "answers"
    assert detect_kind(CONFIG) == "config"
    assert detect_kind(result_file) == "result"
    assert detect_kind(QUESTIONS) == "judgments"
    assert set(KINDS) >= {"judgments", "run", "corpus", "answers", "config", "result"}


def test_answer_cases_validate_without_bogus_errors(capsys) -> None:
    code, out, err = run_cli(["validate", str(CASES)], capsys)
    assert code == 0, err
    assert "(answers): OK" in out and "cases" in out and "answered: 3, declined: 1" in out


def test_config_and_result_files_validate(result_file: Path, capsys) -> None:
    code, out, err = run_cli(["validate", str(CONFIG), str(result_file), "-f", "json"], capsys)
    assert code == 0, err
    config, result = json.loads(out)["reports"]
    assert config["kind"] == "config" and any("keyword" in s for s in config["summary"]["systems"])
    assert result["kind"] == "result" and result["summary"]["result_kind"] == "evaluation"


def test_bad_config_names_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "assay.toml"
    bad.write_text('[systems.a]\ntype = "nosuch"\ncorpus = "missing.csv"\n', encoding="utf-8")
    report = validate_path(bad)
    assert report["kind"] == "config" and not report["ok"]
    assert any("[systems.a.type]" in p and "nosuch" in p for p in report["problems"])
    assert any("[systems.a.corpus]" in p for p in report["problems"])


def test_kind_option_names_every_kind(capsys) -> None:
    code, _, err = run_cli(["validate", str(CASES), "--kind", "answers"], capsys)
    assert code == 0, err
    code, _, err = run_cli(["validate", str(CASES), "--kind", "nosuch"], capsys)
    assert code == 2 and "answers" in err and "config" in err and "result" in err
