"""Under GitHub Actions the gates write the job summary and one annotation per failing check."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.report.github import command, escape_data, escape_property

ROOT = Path(__file__).resolve().parents[2]
#: A line that starts a workflow command (what the runner would execute).
COMMAND = re.compile(r"^::([a-z-]+)( [^:]*)?::", re.M)


def _main(*argv: str, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


@pytest.fixture()
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The environment GitHub sets: GITHUB_ACTIONS=true and the step summary's file."""
    summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("ASSAY_RECORD", "0")
    return summary


def _active(out: str) -> list[str]:
    """The workflow commands the runner would act on: lines starting with ``::``, except
    between ``::stop-commands::TOKEN`` and ``::TOKEN::`` (GitHub's rule)."""
    active, stopped = [], None
    for line in out.splitlines():
        if stopped is not None:
            stopped = None if line == f"::{stopped}::" else stopped
        elif line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
        elif COMMAND.match(line):
            active.append(line)
    assert stopped is None, "commands were left off"
    return active


def _unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace(
        "%2C", ","
    ).replace("%25", "%")  # fmt: skip


def test_escapes_are_githubs() -> None:
    # GitHub's toolkit: data escapes % CR LF; a property also : and ,
    assert escape_data("50% a\r\nb: c, d") == "50%25 a%0D%0Ab: c, d"
    assert escape_property("50% a\r\nb: c, d") == "50%25 a%0D%0Ab%3A c%2C d"
    assert escape_data("bell\x07 esc\x1b[31m nul\x00 c1\x9b") == "bell  esc [31m nul  c1 "
    line = command("error", "t::x", "m\n::warning::injected")
    assert "\n" not in line and len(COMMAND.findall(line)) == 1
    assert _unescape(line.split("::", 2)[2]) == "m\n::warning::injected"


def test_a_secret_never_reaches_an_annotation() -> None:
    from assay.core.redact import register_secret

    register_secret("sk-test-0123456789abcdef")
    assert "sk-test-0123456789abcdef" not in command("error", "x", "key sk-test-0123456789abcdef")


@pytest.fixture()
def regression(tmp_path: Path, capsys) -> dict[str, Path]:
    """40 queries; the candidate drops each relevant document from rank 1 to rank 15.
    A language value carries a newline, a percent sign and a would-be workflow
    command, to show that user data cannot start one."""
    lines, base, worse = [], [], []
    hostile = "de\n::warning title=x::pwned 100%"
    for i in range(40):
        lang = "en" if i < 25 else hostile
        lines.append(json.dumps({"query_id": f"q{i}", "query": f"question {i}",
                                 "relevant": {f"rel{i}": 1}, "language": lang}))  # fmt: skip
        filler = [f"d{i}-{j}" for j in range(20)]
        for name, rows, at in (("base", base, 0), ("worse", worse, 14)):
            ranking = [*filler[:at], f"rel{i}", *filler[at:]]
            rows += [f"q{i} Q0 {d} {r} {100 - r} {name}" for r, d in enumerate(ranking, 1)]
    (tmp_path / "qrels.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "base.trec").write_text("\n".join(base) + "\n")
    (tmp_path / "worse.trec").write_text("\n".join(worse) + "\n")
    code, _, err = _main("evaluate", str(tmp_path / "qrels.jsonl"), str(tmp_path / "base.trec"),
                         "-m", "nDCG@10", "-m", "RR@10", "-o", str(tmp_path / "base.json"),
                         capsys=capsys)  # fmt: skip
    assert code == 0, err
    return {name: tmp_path / name for name in ("qrels.jsonl", "base.json", "worse.trec")}


def test_a_failing_gate_writes_the_summary_and_error_lines(
    regression: dict[str, Path], actions: Path, capsys
) -> None:
    actions.write_text("earlier step\n")
    code, out, err = _main(
        "gate", str(regression["qrels.jsonl"]), str(regression["worse.trec"]),
        "-b", str(regression["base.json"]), "-m", "nDCG@10", "-m", "RR@10",
        "--by", "language", "--min-n", "5", capsys=capsys,
    )  # fmt: skip
    assert code == 1, out + err
    summary = actions.read_text()
    assert summary.startswith("earlier step\n")  # appended, not replaced
    assert "### assay gate failed: regression" in summary and "| nDCG@10 |" in summary
    errors = _active(out)
    assert len(errors) == 6  # two metrics: all queries and both languages
    assert all(line.startswith("::error ") for line in errors)  # the hostile value: no warning
    assert "\n::warning title=x::pwned" in out  # the table shows it, with commands off
    titles = [_unescape(line.split("::")[1].removeprefix("error title=")) for line in errors]
    assert "assay gate: nDCG@10 regressed (all queries)" in titles
    assert "assay gate: RR@10 regressed (language=en)" in titles
    assert "assay gate: RR@10 regressed (language=de\n::warning title=x::pwned 100%)" in titles
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", "".join(errors))


def test_a_passing_gate_writes_the_summary_and_no_error(
    regression: dict[str, Path], actions: Path, capsys
) -> None:
    base_run = regression["worse.trec"].with_name("base.trec")
    code, out, _ = _main("gate", str(regression["qrels.jsonl"]), str(base_run),
                         "-b", str(regression["base.json"]), "-m", "nDCG@10",
                         capsys=capsys)  # fmt: skip
    assert code == 0 and _active(out) == []
    assert "### assay gate passed" in actions.read_text()


def test_json_on_stdout_stays_json(regression: dict[str, Path], actions: Path, capsys) -> None:
    code, out, err = _main(
        "gate", str(regression["qrels.jsonl"]), str(regression["worse.trec"]),
        "-b", str(regression["base.json"]), "-m", "nDCG@10", "-f", "json", capsys=capsys,
    )  # fmt: skip
    assert code == 1 and json.loads(out)["passed"] is False
    assert "::error title=assay gate%3A nDCG@10 regressed" in err  # the runner reads both


def test_outside_github_actions_nothing_changes(
    regression: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    code, out, _ = _main("gate", str(regression["qrels.jsonl"]), str(regression["worse.trec"]),
                         "-b", str(regression["base.json"]), capsys=capsys)  # fmt: skip
    assert code == 1 and "::error" not in out and not (tmp_path / "s.md").exists()


def test_verify_suite_annotates_a_suite_that_cannot_tell(
    examples_dir: Path, actions: Path, capsys
) -> None:
    ex = examples_dir / "statistics"
    code, out, _ = _main(
        "verify-suite", str(ex / "questions.csv"), "--system", "keyword", "--config",
        str(ex / "assay.toml"), "--degraded", "keyword-names-only", "-m", "nDCG@10",
        capsys=capsys,
    )  # fmt: skip
    assert code == 1
    (line,) = _active(out)
    assert line.startswith("::error title=assay verify-suite%3A nDCG@10 cannot tell::")
    assert "### assay verify-suite failed" in actions.read_text()
    assert "| nDCG@10 |" in actions.read_text()


def test_matrix_gate_annotates_the_variant_that_regressed(
    tmp_path: Path, actions: Path, capsys
) -> None:
    example = ROOT / "examples" / "matrix"
    for name in ("cases.jsonl", "answerer.py"):
        shutil.copy(example / name, tmp_path / name)

    def config(name: str, function: str) -> str:
        path = tmp_path / f"{name}.toml"
        path.write_text(
            '[matrix]\ncases = "cases.jsonl"\nrepeats = 2\n[prompts.p]\ntext = "answer"\n'
            f'[baselines.b]\nfunction = "answerer.py:{function}"\n'
        )
        return str(path)

    base = str(tmp_path / "base.json")
    code, _, err = _main("matrix", config("base", "answer"), "-o", base, capsys=capsys)
    assert code == 0, err
    assert not actions.exists()  # a matrix without --gate-against writes no summary
    code, out, _ = _main(
        "matrix", config("worse", "answer_eager"), "--gate-against", base, capsys=capsys
    )
    assert code == 1
    (line,) = _active(out)
    assert line.startswith("::error title=assay matrix gate%3A p/b regressed::")
    assert "### Gate against the baseline: failed" in actions.read_text()


# ------------------------------------------------------------- the composite action
def _expand(value: str, inputs: dict[str, str]) -> str:
    """``${{ inputs.NAME }}`` replaced as the runner does for a composite action's step env."""
    return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], value)


def _run_action(inputs: dict[str, str], folder: Path) -> tuple[int, str, Path, Path]:
    """Every step of action.yml, run with bash as GitHub runs a composite action's steps."""
    import os
    import subprocess

    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    declared = action["inputs"]
    assert set(inputs) <= set(declared)
    given = {name: inputs.get(name, spec.get("default", "")) for name, spec in declared.items()}
    missing = [n for n, spec in declared.items() if spec.get("required") and not given[n]]
    assert not missing, missing
    summary, output = folder / "summary.md", folder / "output.txt"
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(folder),
        "PIP_NO_INDEX": "1",  # nothing downloaded: the package is already installed
        "PYTHONPATH": str(ROOT / "src"),
        "ASSAY_RECORD": "0",
    }
    transcript, code = "", 0
    for step in action["runs"]["steps"]:
        assert step["shell"] == "bash" and "${{" not in step["run"]  # inputs only via env
        step_env = {k: _expand(str(v), given) for k, v in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            env={**env, **step_env}, cwd=folder, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        transcript += done.stdout + done.stderr
        code = done.returncode
        if code:
            break
    return code, transcript, summary, output


def test_the_action_gates_a_worse_run(regression: dict[str, Path], tmp_path: Path) -> None:
    import sys

    inputs = {
        "judgments": str(regression["qrels.jsonl"]),
        "run": str(regression["worse.trec"]),
        "baseline": str(regression["base.json"]),
        "metrics": "nDCG@10, RR@10",
        "args": "--margin 0.02 --by language --min-n 5",
        "python": sys.executable,
        "package": "assay",  # already installed: pip finds it satisfied, offline
    }
    code, transcript, summary, output = _run_action(inputs, tmp_path)
    assert code == 1, transcript
    assert dict(line.split("=", 1) for line in output.read_text().splitlines()) == {
        "exit-code": "1",
        "passed": "false",
    }
    assert "### assay gate failed: regression" in summary.read_text()
    assert "margin 0.020" in summary.read_text()
    errors = _active(transcript)
    assert len(errors) == 6 and all(e.startswith("::error title=assay gate") for e in errors)


def test_the_action_passes_an_equal_run(regression: dict[str, Path], tmp_path: Path) -> None:
    import sys

    inputs = {
        "judgments": str(regression["qrels.jsonl"]),
        "run": str(regression["worse.trec"].with_name("base.trec")),
        "baseline": str(regression["base.json"]),
        "python": sys.executable,
        "package": "assay",
    }
    code, transcript, summary, output = _run_action(inputs, tmp_path)
    assert code == 0, transcript
    assert "passed=true" in output.read_text().splitlines()
    assert "### assay gate passed" in summary.read_text() and _active(transcript) == []


def test_the_documented_workflow_uses_the_action_as_declared() -> None:
    import yaml

    page = (ROOT / "docs" / "workflows" / "github-actions.md").read_text()
    (block,) = re.findall(r"```yaml\n(.*?)```", page, re.S)
    workflow = yaml.safe_load(block)
    declared = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    (step,) = [s for s in workflow["jobs"]["gate"]["steps"] if s.get("id") == "gate"]
    assert set(step["with"]) <= set(declared)
    assert {n for n, spec in declared.items() if spec.get("required")} <= set(step["with"])
