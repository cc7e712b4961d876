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
from assay.results.models import RESULT_MODELS
from llm_stub import model_toml, stub  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
STATS = ROOT / "examples" / "statistics"
QUESTIONS = STATS / "questions.csv"
CONFIG = STATS / "assay.toml"
CASES = ROOT / "examples" / "answers" / "cases.jsonl"
MATRIX = ROOT / "examples" / "matrix" / "matrix.toml"
JUDGES = ROOT / "tests" / "data" / "judges"
DATA_RUNS = ROOT / "tests" / "data" / "runs"
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
    "parquet": ".parquet",
    "latex": ".tex",
}


def _run(argv: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "unexpected" not in out.err and "Traceback" not in out.err, out.err
    return int(exc.value.code or 0), out.out, out.err


def _suffixes(kind: str) -> list[str]:
    """Every file suffix a kind's command writes (``table`` is the ``plain`` file): every
    format ``assay report`` renders the kind in."""
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
        "validation": ["validate", QUESTIONS, runs["a"], CONFIG],
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
        "tuning": ["tune", QUESTIONS, "--system", "bm25", "--config", CONFIG, "--param",
                   "k1=0.9,1.2", "-m", "RR", "--folds", "2", "--no-record", "-q"],
    }[kind]  # fmt: skip


def _prepared(
    kind: str,
    runs: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> list[Any]:
    """The command writing ``kind``, with what it needs (a model stub, UBI logs, a store)."""
    toml = request.getfixturevalue("model_toml") if kind.startswith(("model_", "synth")) else None
    argv = _command(kind, runs, tmp_path, toml)
    if kind == "implicit_judgments":
        shared = request.getfixturevalue("shared_data")  # skips when absent
        argv[2:3] = [shared / "ubi_chorus" / "ubi_queries_events.ndjson", "--application", "Chorus"]
    if kind == "history":  # something recorded to list
        code, _, err = _run(["evaluate", QUESTIONS, runs["a"], "--store", argv[2]], capsys)
        assert code == 0, err
    if kind == "matrix":  # its Python baselines' latencies: the same in every run of the test
        import assay.matrix.runner as runner

        request.getfixturevalue("monkeypatch").setattr(runner, "time", _StillClock())
    return argv


class _StillClock:
    """The ``time`` module with a clock that does not move (``monotonic`` is always 0)."""

    def __getattr__(self, name: str) -> Any:
        import time

        return getattr(time, name)

    @staticmethod
    def monotonic() -> float:
        return 0.0


def test_every_written_kind_is_registered() -> None:
    """The 15 kinds commands write are in RESULT_MODELS, each with its report formats."""
    assert set(RESULT_MODELS) == set(FORMATS_BY_KIND)
    from assay.results.models import result_model

    for kind in RESULT_MODELS:
        model = result_model(kind)
        assert model.model_fields["kind"].default == kind
        assert model.model_fields["schema_version"].default


KINDS = [
    "evaluation", "comparison", "answers", "gate", "verify", "matrix", "history",
    "validation", "agreement", "calibration",
    "model_judgments", "model_claims", "model_answers", "synthetic-queries",
    "implicit_judgments", "tuning",
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_command_writes_every_format_and_report_renders_it_again(
    kind: str,
    runs: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = _prepared(kind, runs, tmp_path, request, capsys)
    suffixes = _suffixes(kind)
    outs = {s: tmp_path / f"out{s}" for s in suffixes}
    if kind in ("model_judgments", "model_claims", "synthetic-queries"):
        outs.pop(".jsonl", None)  # their .jsonl -o is the data file itself
    code, out, err = _run([*argv, *(x for p in outs.values() for x in ("-o", p))], capsys)
    assert code in (0, 1), err  # gate and verify exit 1 on a regression
    assert out == "", out  # -o files: stdout stays empty (the one -o rule)
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


#: An ISO time stamp (``created_at``): two runs of one command differ in it only.
STAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?(?:\.\d+)?(?:\+00:00|Z)?")


def _same_but_time(a: str, b: str) -> bool:
    return STAMP.sub("TIME", a) == STAMP.sub("TIME", b)


@pytest.mark.parametrize(
    ("kind", "fmt"),
    [(k, f) for k in KINDS for f in FORMATS_BY_KIND[k] if f not in ("json", "parquet")],
)
def test_command_prints_every_format_as_report_renders_its_result(
    kind: str,
    fmt: str,
    runs: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``COMMAND -f X`` prints what ``assay report RESULT.json -f X`` prints of the result
    ``COMMAND -f json`` printed (the result's time stamp aside): every format ``report``
    renders for a kind, its command writes (parquet, a file only: see the test above)."""
    argv = _prepared(kind, runs, tmp_path, request, capsys)
    code, result, err = _run([*argv, "-f", "json"], capsys)
    assert code in (0, 1), err
    (tmp_path / "r.json").write_text(result)
    code, printed, err = _run([*argv, "-f", fmt], capsys)
    assert code in (0, 1), err
    code, again, err = _run(["report", tmp_path / "r.json", "-f", fmt], capsys)
    assert code == 0, err
    assert printed and _same_but_time(printed, again), (kind, fmt)


@pytest.mark.parametrize("kind", KINDS)
def test_o_writes_files_only_and_o_dash_adds_the_table(
    kind: str,
    runs: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The one ``-o`` rule, for every command: with ``-o FILE`` stdout is empty and stderr
    says the file written; ``-o -`` among the outputs adds the table on stdout, the one
    ``assay report FILE`` prints; ``-o -`` alone is as no ``-o``."""
    argv = _prepared(kind, runs, tmp_path, request, capsys)
    written = tmp_path / "only.json"
    code, out, err = _run([*argv, "-o", written], capsys)
    assert code in (0, 1), err
    assert out == "" and f"wrote {written} ({kind}, json)" in err
    both = tmp_path / "both.json"
    code, out, err = _run([*argv, "-o", both, "-o", "-"], capsys)
    assert code in (0, 1), err
    assert f"wrote {both} ({kind}, json)" in err and "wrote -" not in err
    code, table, _ = _run(["report", both], capsys)
    assert out and out == table
    code, alone, _ = _run([*argv, "-o", "-", "-f", "json"], capsys)
    assert _same_but_time(alone, both.read_text())


#: Every command that produces a result or a file (``judge import`` converts a file: left out).
RESULT_COMMANDS = [
    "evaluate", "run", "compare", "gate", "verify-suite", "answers", "report", "history",
    "validate", "fuse", "matrix", "generate queries", "judge llm", "judge claims",
    "judge answers", "judge agree", "judge sample", "judge calibrate", "judge pool",
    "judge export", "judge clicks", "judge sample-queries",
]  # fmt: skip


def test_every_result_command_takes_o_and_f() -> None:
    import typer

    from assay.cli.app import _load_commands, app

    _load_commands()
    root = typer.main.get_command(app)
    for path in RESULT_COMMANDS:
        command = root
        for name in path.split():
            command = command.commands[name]
        opts = {o for p in command.params for o in getattr(p, "opts", [])}
        assert {"-o", "--output", "-f", "--format"} <= opts, path


def test_old_gate_flags_warn_and_write_what_they_wrote(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = {"--markdown": "g.md", "--junit": "g.xml", "--json": "g.json", "--save-result": "c.json"}
    argv = ["gate", QUESTIONS, runs["b"], "--baseline", runs["eval"], "--no-record"]
    code, out, err = _run([*argv, *(x for f, n in old.items() for x in (f, tmp_path / n))], capsys)
    assert code in (0, 1), err
    for flag, new in (("--markdown", "-o FILE.md"), ("--junit", "-o FILE.xml")):
        assert f"warning: {flag} is deprecated" in err and new in err
    assert "warning: --json is deprecated" in err and "warning: --save-result" in err
    assert out == ""  # files written (old flags too): stdout stays empty, the one -o rule
    assert json.loads((tmp_path / "c.json").read_text())["kind"] == "evaluation"
    code, _, err = _run([*argv, "-o", tmp_path / "n.md", "-o", tmp_path / "n.xml"], capsys)
    assert "deprecated" not in err
    # the same files under the old and the new spelling (the result's time stamp aside)
    from assay.results.models import read_result_file

    stamp = read_result_file(tmp_path / "g.json").created_at
    for old_name, new_name in (("g.md", "n.md"), ("g.xml", "n.xml")):
        text = (tmp_path / new_name).read_text()
        new_stamp = re.search(r"\d{4}-\d\d-\d\dT[\d:]+\+00:00", text)
        if new_stamp:
            text = text.replace(new_stamp.group(0), stamp)
        assert (tmp_path / old_name).read_text() == text, old_name
    import xml.etree.ElementTree as ET

    assert ET.parse(tmp_path / "g.xml").getroot().tag in ("testsuites", "testsuite")


def test_judge_format_text_warns_and_means_plain(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["judge", "agree", QUESTIONS, QUESTIONS]
    code, old, err = _run([*argv, "--format", "text"], capsys)
    assert code == 0 and "warning: --format text is deprecated" in err and "--format plain" in err
    code, new, err = _run([*argv, "-f", "plain"], capsys)
    assert code == 0 and "deprecated" not in err
    assert old == new and "kappa" in new


def test_old_clicks_flags_warn_and_write_the_same_files(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ubi = shared_data / "ubi_chorus" / "ubi_queries_events.ndjson"
    argv = ["judge", "clicks", ubi, "--positions", "1", "--application", "Chorus"]
    old = [*argv, "-o", tmp_path / "i.jsonl", "--stats", tmp_path / "s.csv"]
    code, _, err = _run([*old, "--json", tmp_path / "r.json"], capsys)
    assert code == 0, err
    assert "warning: --stats is deprecated" in err and "-o FILE.csv" in err
    assert "warning: --json is deprecated" in err and "-o FILE.json" in err
    new = [tmp_path / "pairs.csv", tmp_path / "new.jsonl", tmp_path / "new.json"]
    code, _, err = _run([*argv, *(x for p in new for x in ("-o", p))], capsys)
    assert code == 0 and "deprecated" not in err
    assert (tmp_path / "s.csv").read_text() == new[0].read_text()
    assert (tmp_path / "i.jsonl").read_text() == new[1].read_text()
    assert "wrote " + str(new[0]) + " (implicit_judgments, csv)" in err


def test_one_result_many_files_one_history_entry(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:///{tmp_path / 'h.db'}"
    outs = [tmp_path / f"e{s}" for s in (".json", ".md", ".csv", ".txt")]
    argv = ["evaluate", QUESTIONS, runs["a"], "--store", store]
    code, _, err = _run([*argv, *(x for p in outs for x in ("-o", p))], capsys)
    assert code == 0, err
    assert len(WROTE.findall(err)) == 4
    gate = ["gate", QUESTIONS, runs["b"], "--baseline", outs[0], "--store", store]
    gouts = [tmp_path / f"g{s}" for s in (".json", ".md", ".xml", ".txt")]
    code, _, err = _run([*gate, *(x for p in gouts for x in ("-o", p))], capsys)
    assert code in (0, 1), err
    code, out, err = _run(["history", "--store", store, "--kind", "all", "-f", "json"], capsys)
    kinds = sorted(r["kind"] for r in json.loads(out)["rows"])
    assert kinds == ["evaluation", "evaluation", "gate"]  # the gate records its candidate once


def test_data_commands_say_what_they_wrote(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = [
        (["fuse", DATA_RUNS / "keyword.trec", DATA_RUNS / "names.trec", "-o", tmp_path / "f.jsonl"],
         "f.jsonl", ("run", "jsonl")),
        (["judge", "pool", QUESTIONS, runs["a"], "-o", tmp_path / "p.jsonl"], "p.jsonl",
         ("pool", "jsonl")),
        (["judge", "sample", QUESTIONS, "-o", tmp_path / "r.jsonl"], "r.jsonl",
         ("review", "jsonl")),
        (["validate", QUESTIONS, "-o", tmp_path / "v.json"], "v.json", ("validation", "json")),
    ]  # fmt: skip
    for argv, name, said in jobs:
        code, _, err = _run(argv, capsys)
        assert code == 0, (argv, err)
        found = {Path(m[0]).name: (m[1], m[2]) for m in WROTE.findall(err)}
        assert found.get(name) == said, (argv, err)
    assert json.loads((tmp_path / "f.jsonl").read_text().splitlines()[-1])
    assert json.loads((tmp_path / "v.json").read_text())["reports"][0]["ok"] is True
    code, _, err = _run(
        ["judge", "pool", QUESTIONS, runs["a"], "-o", tmp_path / "x", "-f", "csv"], capsys
    )
    assert code == 2 and "--format" in err
