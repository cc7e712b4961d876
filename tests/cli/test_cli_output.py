"""One output vocabulary: every command that produces a result takes ``-o FILE`` (repeatable,
format from the suffix) and ``-f``; each file is said on stderr as ``wrote FILE (kind,
format)``; every result file renders again with ``assay report`` exactly as its command
wrote it; the old output flags still work for one release and warn with the new spelling.

Each result kind is written once by its own command in all its formats (``-o`` repeated),
then ``assay report`` renders the ``.json`` file into every one of those formats and the
files must be identical byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main
from assay.report.render import FORMATS_BY_KIND
from assay.results import RESULT_MODELS
from llm_stub import model_toml, stub  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
STATS = ROOT / "examples" / "statistics"
QUESTIONS = STATS / "questions.csv"
CONFIG = STATS / "assay.toml"
CASES = ROOT / "examples" / "answers" / "cases.jsonl"
MATRIX = ROOT / "examples" / "matrix" / "matrix.toml"
JUDGES = ROOT / "tests" / "data" / "judges"
WROTE = re.compile(r"^wrote (.+) \(([^,]+), ([a-z]+)\)$", re.M)

#: The suffix each format is written under.
SUFFIX = {
    "json": ".json",
    "csv": ".csv",
    "markdown": ".md",
    "html": ".html",
    "plain": ".txt",
    "junit": ".xml",
    "jsonl": ".jsonl",
}


def _run(argv: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "unexpected" not in out.err and "Traceback" not in out.err, out.err
    return int(exc.value.code or 0), out.out, out.err


def _suffixes(kind: str) -> list[str]:
    """Every file suffix a kind is written in (``table`` is the ``plain`` file)."""
    return sorted({SUFFIX[f] for f in FORMATS_BY_KIND[kind] if f != "table"})


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs and the first one's evaluation result, made by the CLI."""
    work = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ASSAY_RECORD", "0")
        for system, name in (("keyword", "a.trec"), ("keyword-names-only", "b.trec")):
            argv = ["run", QUESTIONS, "-s", system, "--config", CONFIG, "-o", work / name]
            with pytest.raises(SystemExit) as exc:
                main([str(a) for a in [*argv, "--no-cache", "-q"]])
            assert exc.value.code in (0, None)
        with pytest.raises(SystemExit):
            main(["evaluate", str(QUESTIONS), str(work / "a.trec"), "-o", str(work / "a.json")])
    human = work / "human.csv"  # people's labels on 8 of the 15 questions
    human.write_text("".join(QUESTIONS.read_text().splitlines(keepends=True)[:9]))
    return {"a": work / "a.trec", "b": work / "b.trec", "eval": work / "a.json", "human": human}


def _command(kind: str, runs: dict[str, Path], tmp: Path, toml: Path | None) -> list[Any]:
    """The command that writes ``kind``, without its ``-o`` files."""
    store = f"sqlite:///{tmp / 'h.db'}"
    model = ["--model", "stub", "--config", toml]
    return {
        "evaluation": ["evaluate", QUESTIONS, runs["a"], "--no-record"],
        "comparison": ["compare", QUESTIONS, runs["a"], runs["b"], "--no-record"],
        "answers": ["answers", CASES, "--no-record"],
        "gate": ["gate", QUESTIONS, runs["b"], "--baseline", runs["eval"], "--no-record"],
        "verify": [
            "verify-suite",
            QUESTIONS,
            "-s",
            "keyword",
            "--config",
            CONFIG,
            "--degraded",
            "keyword-names-only",
            "-m",
            "nDCG@10",
            "--no-record",
        ],
        "matrix": ["matrix", MATRIX, "--no-record"],
        "history": ["history", "--store", store, "--kind", "all"],
        "agreement": ["judge", "agree", QUESTIONS, QUESTIONS],
        "calibration": ["judge", "calibrate", QUESTIONS, runs["a"], "--human", runs["human"]],
        "model_judgments": [
            "judge",
            "llm",
            JUDGES / "pool.jsonl",
            "--corpus",
            JUDGES / "docs.jsonl",
            *model,
            "-o",
            tmp / "labels.jsonl",
        ],
        "model_claims": [
            "judge",
            "claims",
            JUDGES / "cases.jsonl",
            "--corpus",
            JUDGES / "docs.jsonl",
            *model,
            "-o",
            tmp / "filled.jsonl",
        ],
        "model_answers": ["judge", "answers", JUDGES / "cases.jsonl", *model],
        "synthetic-queries": [
            "generate",
            "queries",
            "--corpus",
            JUDGES / "docs.jsonl",
            *model,
            "-n",
            "2",
            "-o",
            tmp / "queries.jsonl",
        ],
        "implicit_judgments": [
            "judge",
            "clicks",
            "UBI",
            "--positions",
            "1",
            "--min-impressions",
            "2",
        ],
    }[kind]


def test_every_written_kind_is_registered() -> None:
    """The 14 kinds commands write are in RESULT_MODELS, each with its report formats."""
    assert set(RESULT_MODELS) == set(FORMATS_BY_KIND)
    from assay.results import result_model

    for kind in RESULT_MODELS:
        model = result_model(kind)
        assert model.model_fields["kind"].default == kind
        assert model.model_fields["schema_version"].default


KINDS = [
    "evaluation", "comparison", "answers", "gate", "verify", "matrix", "history",
    "agreement", "calibration",
    "model_judgments", "model_claims", "model_answers", "synthetic-queries",
    "implicit_judgments",
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_command_writes_every_format_and_report_renders_it_again(
    kind: str,
    runs: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    toml = request.getfixturevalue("model_toml") if kind.startswith(("model_", "synth")) else None
    argv = _command(kind, runs, tmp_path, toml)
    if kind == "implicit_judgments":
        shared = request.getfixturevalue("shared_data")  # skips when absent
        argv[2:3] = [shared / "ubi_chorus" / "ubi_queries_events.ndjson", "--application", "Chorus"]
    if kind == "history":  # something recorded to list
        code, _, err = _run(["evaluate", QUESTIONS, runs["a"], "--store", argv[2]], capsys)
        assert code == 0, err
    suffixes = _suffixes(kind)
    outs = {s: tmp_path / f"out{s}" for s in suffixes}
    if kind in ("model_judgments", "model_claims", "synthetic-queries"):
        outs.pop(".jsonl", None)  # their .jsonl -o is the data file itself
    code, _, err = _run([*argv, *(x for p in outs.values() for x in ("-o", p))], capsys)
    assert code in (0, 1), err  # gate and verify exit 1 on a regression
    said = {Path(m[0]).name: (m[1], m[2]) for m in WROTE.findall(err)}
    for suffix, path in outs.items():
        fmt = next(f for f, s in SUFFIX.items() if s == suffix)
        assert said[path.name] == (kind, "text" if fmt == "plain" else fmt), err
    again = {s: tmp_path / f"again{s}" for s in outs}
    code, _, err = _run(
        ["report", outs[".json"], *(x for p in again.values() for x in ("-o", p))], capsys
    )
    assert code == 0, err
    for suffix in outs:
        assert again[suffix].read_bytes() == outs[suffix].read_bytes(), (kind, suffix)
    assert json.loads(outs[".json"].read_text())["kind"] == kind
