"""The procedures behind run, fuse, trec-eval, answers, validate, serve and view: the
library call and the command give the same files and lines, and the checks the
commands did by hand are the option models' (a UsageError naming the parameter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli import main
from assay.core.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
RUNS = ROOT / "tests" / "data" / "runs"
#: Sidecar fields stamped at run time, not computed from the inputs.
STAMPS = {"started", "finished", "latency_ms", "cached", "judgments"}


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_run_to_file_writes_what_assay_run_writes(tmp_path: Path, capsys) -> None:
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.running import RunOptions, run_to_file

    questions, config = EXAMPLE / "questions.csv", EXAMPLE / "assay.toml"
    by_cli, by_lib = tmp_path / "cli" / "k.trec", tmp_path / "lib" / "k.trec"
    code, _, err = _cli(
        capsys, "run", str(questions), "-s", "keyword", "--config", str(config), "-k", "7",
        "-o", str(by_cli), "--abstain-below", "0.2", "--no-progress", "--no-cache",
    )  # fmt: skip
    assert code == 0, err
    source = SourceOptions(system="keyword", config=config, no_cache=True)
    options = RunOptions(abstain_below=0.2, progress=False)
    written = run_to_file(questions, by_lib, source, options, ScoringOptions(k=7))
    assert (written.path, written.format) == (by_lib, "trec")
    cli_lines = by_cli.read_text().splitlines()
    assert by_lib.read_text().splitlines() == cli_lines and len(cli_lines) > 10

    def content(path: Path) -> dict:
        return {k: v for k, v in json.loads(path.read_text()).items() if k not in STAMPS}

    assert content(written.sidecar_path) == content(by_cli.with_name("k.trec.json"))
    typed = written.sidecar  # the sidecar, typed
    assert (typed.system, typed.k, typed.failures) == ("keyword", 7, [])
    assert typed.run_file is not None and typed.run_file.bytes == by_lib.stat().st_size
    assert typed.abstention is not None and typed.abstention["threshold"] == 0.2
    assert written.failed_runs() == [("keyword", [])]


@pytest.mark.parametrize(
    ("model", "values", "parameter"),
    [
        ("assay.procedures.running:RunOptions", {"concurrency": 0}, "concurrency"),
        ("assay.procedures.running:RunOptions", {"format": "xml"}, "format"),
        ("assay.procedures.treceval:TrecEvalOptions", {"depth": 0}, "trec_eval_depth"),
        ("assay.procedures.treceval:TrecEvalOptions", {"level": -1}, "trec_eval_level"),
        ("assay.procedures.validation:ValidateOptions", {"kind": "banana"}, "kind"),
        ("assay.procedures.validation:ValidateOptions", {"judgments_format": "x"}, ""),
        ("assay.procedures.serving:ServeOptions", {"port": 70000}, "port"),
        ("assay.view.launch:ViewOptions", {"port": 0}, "port"),
        ("assay.procedures.answers:AnswersOptions", {"cases": "c", "system_name": " "}, ""),
    ],
)
def test_option_models_refuse_with_the_parameter_named(
    model: str, values: dict, parameter: str
) -> None:
    import importlib

    module, name = model.split(":")
    cls = getattr(importlib.import_module(module), name)
    parameter = parameter or list(values)[-1]  # "": the last value given is at fault
    with pytest.raises(UsageError) as info:  # not pydantic's ValidationError
        cls(**values)
    assert info.value.parameter == parameter and f"`{parameter}`" in str(info.value)


def test_fuse_writes_what_assay_fuse_writes(tmp_path: Path, capsys) -> None:
    from assay.procedures.fusion import FuseOptions, fuse

    runs = [str(RUNS / "keyword.trec"), str(RUNS / "names.trec")]
    code, _, err = _cli(capsys, "fuse", *runs, "-o", str(tmp_path / "cli.trec"), "-k", "5")
    assert code == 0, err
    fused = fuse(runs, tmp_path / "lib.trec", FuseOptions(limit=5))
    assert (fused.format, fused.inputs, fused.method) == ("trec", 2, "rrf")
    assert (tmp_path / "lib.trec").read_text() == (tmp_path / "cli.trec").read_text()
    assert len(fused.run.frame) > 0


def test_trec_eval_gives_the_lines_assay_trec_eval_prints(tmp_path: Path, capsys) -> None:
    from assay.procedures.treceval import TrecEvalOptions, trec_eval

    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq2 Q0 d9 1 3.0 t\n")
    code, out, _ = _cli(capsys, "trec-eval", str(qrels), str(run), "-q", "-m", "P.1,2")
    assert code == 0
    lines, warnings = trec_eval(qrels, run, TrecEvalOptions(per_query=True, measures=["P.1,2"]))
    assert out.splitlines() == lines and warnings == []
    with pytest.raises(UsageError, match="qrels come first"):
        trec_eval(run, qrels)


def test_check_answers_scores_as_assay_answers(capsys) -> None:
    from assay.answers.result import AnswersResult
    from assay.procedures.answers import AnswersOptions, check_answers

    cases = ROOT / "examples" / "answers" / "cases.jsonl"
    code, out, err = _cli(capsys, "answers", str(cases), "-f", "json", "--no-record")
    assert code == 0, err
    result = check_answers(AnswersOptions(cases=cases))
    assert isinstance(result, AnswersResult) and result.exit_code() == 0
    drop = {"created_at", "environment"}
    cli = {k: v for k, v in json.loads(out).items() if k not in drop}
    assert cli == {k: v for k, v in json.loads(result.to_json()).items() if k not in drop}


def test_validate_files_reports_what_assay_validate_prints(capsys) -> None:
    from assay.procedures.validation import ValidateOptions, ValidationResult, validate_files

    files = [EXAMPLE / "questions.csv", EXAMPLE / "assay.toml"]
    code, out, _ = _cli(capsys, "validate", *map(str, files), "-f", "json")
    checked = validate_files(files, ValidateOptions())
    assert isinstance(checked, ValidationResult) and checked.kind == "validation"
    assert code == checked.exit_code() == 0 and checked.failure() is None
    drop = {"created_at"}
    cli = {k: v for k, v in json.loads(out).items() if k not in drop}
    assert cli == {k: v for k, v in json.loads(checked.to_json()).items() if k not in drop}
    assert [r.kind for r in checked.reports] == ["judgments", "config"]


def test_serve_system_and_open_view_return_apps_that_answer(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from assay.procedures.options import SourceOptions
    from assay.procedures.serving import ServeOptions, serve_system
    from assay.view.launch import ViewOptions, open_view

    source = SourceOptions(system="keyword", config=EXAMPLE / "assay.toml")
    server = serve_system(source, ServeOptions(port=8123))
    assert server.url == "http://127.0.0.1:8123" and server.loopback
    assert server.system_name == "keyword" and server.config_hash.startswith("sha256:")
    with TestClient(server.app) as client:
        hits = client.get("/search", params={"q": "population", "k": 3}).json()["hits"]
    assert len(hits) == 3
    with pytest.raises(UsageError, match="no such file"):
        serve_system(SourceOptions(system="keyword", config=tmp_path / "nope.toml"))
    viewer = open_view([], ViewOptions(store=f"sqlite:///{tmp_path / 's.db'}", host="0.0.0.0"))
    assert not viewer.loopback and viewer.port == 8766
