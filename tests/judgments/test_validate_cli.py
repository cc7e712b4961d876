"""``assay validate``: summaries, JSON output (a validation result), several files, kind
detection."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.procedures.validation import detect_kind

FIX = Path(__file__).resolve().parents[1] / "data" / "judgments"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``assay`` in process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_table_summary(capsys) -> None:
    code, out, _ = run_cli(["validate", str(FIX / "eval_questions.csv")], capsys)
    assert code == 0
    assert "answerable queries" in out and "14" in out
    assert "no answer queries" in out
    assert "language, note" in out
    assert "sha256:" in out


def test_json_summary(capsys) -> None:
    files = [str(FIX / "eval_questions.csv"), str(FIX / "qrels.jsonl")]
    code, out, _ = run_cli(["validate", *files, "--format", "json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert (result["kind"], result["schema_version"]) == ("validation", "1")
    reports = result["reports"]
    assert [r["ok"] for r in reports] == [True, True]
    first = reports[0]["summary"]
    assert (first["queries"], first["answerable_queries"], first["no_answer_queries"]) == (
        15,
        14,
        1,
    )
    assert reports[1]["summary"]["judgments_per_grade"] == {"0": 1, "1": 1, "2": 3}


def test_several_files_one_bad(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "a", "query": "x", "relevant": {"d": 1.5}}\n')
    code, out, err = run_cli(["validate", str(FIX / "qrels.jsonl"), str(bad)], capsys)
    assert code == 2
    assert "qrels.jsonl (judgments): OK" in out
    assert f"{bad}:1: [relevant] grade 1.5" in err
    assert "1 of 2 files failed validation" in err
    code, out, _ = run_cli(["validate", str(bad), "--format", "json"], capsys)
    assert code == 2 and json.loads(out)["reports"][0]["problems"][0].startswith(f"{bad}:1:")


def test_result_with_a_bad_file_renders_again(tmp_path: Path, capsys) -> None:
    """The result file of a failed validation is written in full; ``assay report`` prints
    the same table and the same problems (exit 0: it only renders)."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "a", "query": "x", "relevant": {"d": 1.5}}\n')
    saved = tmp_path / "v.json"
    files = [str(FIX / "qrels.jsonl"), str(bad)]
    code, out, err = run_cli(["validate", *files, "-o", str(saved)], capsys)
    assert code == 2 and out == "", err
    assert err.splitlines()[-1] == "error: 1 of 2 files failed validation"
    assert [r["ok"] for r in json.loads(saved.read_text())["reports"]] == [True, False]
    code, table, problems = run_cli(["validate", *files, "-f", "plain"], capsys)
    assert code == 2
    code, again, said = run_cli(["report", str(saved), "-f", "plain"], capsys)
    assert code == 0 and again == table and "qrels.jsonl (judgments): OK" in again
    assert said == problems.removesuffix("error: 1 of 2 files failed validation\n")


def test_bad_option_is_a_usage_error(capsys) -> None:
    code, _, err = run_cli(["validate", str(FIX / "qrels.jsonl"), "--format", "xml"], capsys)
    assert code == 2 and "--format must be one of" in err
    code, _, err = run_cli(["validate", str(FIX / "qrels.jsonl"), "--kind", "banana"], capsys)
    assert code == 2 and "--kind must be one of" in err


def test_missing_file(tmp_path: Path, capsys) -> None:
    code, _, err = run_cli(["validate", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "not found" in err and "Traceback" not in err


def test_detect_kind(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 0.5 bm25\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    runjl = tmp_path / "run.jsonl"
    runjl.write_text('{"query_id": "1", "results": [{"doc_id": "d1"}]}\n')
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "hello"}\n')
    assert detect_kind(run) == "run"
    assert detect_kind(runjl) == "run"
    assert detect_kind(qrels) == "judgments"
    assert detect_kind(corpus) == "corpus"
    assert detect_kind(FIX / "qrels.jsonl") == "judgments"
    assert detect_kind(FIX / "eval_questions.csv") == "judgments"
    assert detect_kind(FIX / "eval_dataset.json") == "judgments"


def test_beir_folder_is_judgments(shared_data: Path, capsys) -> None:
    assert detect_kind(shared_data / "beir_scifact") == "judgments"
    code, out, _ = run_cli(
        ["validate", str(shared_data / "beir_scifact"), "--format", "json"], capsys
    )
    assert code == 0 and json.loads(out)["reports"][0]["summary"]["queries"] == 300


@pytest.mark.skipif(
    importlib.util.find_spec("assay.runs.io") is None, reason="assay.runs.io not written yet"
)
def test_validate_run(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 0.5 bm25\n1 Q0 d2 2 0.4 bm25\n2 Q0 d1 1 0.9 bm25\n")
    code, out, err = run_cli(["validate", str(run), "--format", "json"], capsys)
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    assert report["kind"] == "run"
    assert (report["summary"]["queries"], report["summary"]["rows"]) == (2, 3)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 0.5 bm25\n1 Q0 d1 2 0.4 bm25\n")
    code, _, err = run_cli(["validate", str(bad), "--kind", "run"], capsys)
    assert code == 2 and str(bad) in err


def _has_load_corpus() -> bool:
    if importlib.util.find_spec("assay.corpora") is None:
        return False
    import assay.corpora

    return hasattr(assay.corpora, "load_corpus")


@pytest.mark.skipif(not _has_load_corpus(), reason="assay.corpora.load_corpus not written yet")
def test_validate_corpus(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "hello"}\n{"_id": "d2", "text": "world"}\n')
    code, out, err = run_cli(["validate", str(corpus), "--format", "json"], capsys)
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    assert report["kind"] == "corpus" and report["summary"]["documents"] == 2
