"""Seams a new user hit, each checked with the command the user typed."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.cli.app import _command, _dispatch, _load_commands
from assay.cli.common import SUFFIX_FORMATS

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
EXAMPLE = ROOT / "examples" / "statistics"
QUESTIONS = EXAMPLE / "questions.csv"
CONFIG = EXAMPLE / "assay.toml"
CASES = ROOT / "examples" / "answers" / "cases.jsonl"
CMD = [sys.executable, "-m", "assay"]  # the program as installed: main() then the quick exit


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess, on a pipe."""
    return subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=cwd, timeout=180)


def in_process(*args: str) -> int:
    """The CLI in this process (its output goes to capsys): the exit code."""
    return _dispatch(list(args))


def click_commands() -> list[tuple[str, Any]]:
    """Every command of the app, with its full name (``judge agree``), groups included."""
    _load_commands()
    out: list[tuple[str, Any]] = []

    def walk(name: str, command: Any) -> None:
        out.append((name, command))
        for sub_name, sub in getattr(command, "commands", {}).items():
            walk(f"{name} {sub_name}".strip(), sub)

    walk("", _command())
    return out


def option(command: Any, flag: str) -> Any:
    """The click option of ``command`` answering to ``flag``, or None."""
    return next((p for p in command.params if flag in getattr(p, "opts", [])), None)


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    """A small BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv."""
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    docs = [
        ("d1", "Unemployment", "The jobless rate measures unemployment in the labour force."),
        ("d2", "Inflation", "Consumer prices rise over time; inflation is measured by the CPI."),
        ("d3", "Population", "A census counts the people living in a country."),
        ("d4", "Trade", "Exports and imports of goods between countries."),
    ]
    with (root / "corpus.jsonl").open("w") as f:
        for doc_id, title, text in docs:
            f.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    queries = [("q1", "jobless rate"), ("q2", "consumer prices"), ("q3", "census people")]
    with (root / "queries.jsonl").open("w") as f:
        for qid, text in queries:
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    rows = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n"
    (root / "qrels" / "test.tsv").write_text(rows)
    return root


# --- a BEIR folder gives its corpus to every command that takes --system ---------------------


def test_beir_folder_gives_its_corpus_to_every_system_command(
    beir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(beir.parent)
    assert in_process("run", str(beir), "--system", "bm25", "-o", "bm25.trec", "-q") == 0
    sidecar = json.loads(Path("bm25.trec.json").read_text())
    assert sidecar["corpus_version"], sidecar  # the folder's corpus.jsonl was read
    rc = in_process("evaluate", str(beir), "--system", "bm25", "-o", "base.json", "-q")
    assert rc == 0, capsys.readouterr().err
    for args in (
        ["compare", str(beir), "--system", "bm25", "--system", "keyword", "-q"],
        ["gate", str(beir), "--system", "bm25", "--baseline", "base.json", "-q"],
        ["verify-suite", str(beir), "--system", "bm25", "--degraded", "shuffle"],
    ):
        rc = in_process(*args, "--no-record")
        err = capsys.readouterr().err
        assert "corpus" not in err, (args, err)
        # verify-suite exits 1 when three queries cannot show the shuffle is worse
        assert rc in ((0, 1) if args[0] == "verify-suite" else (0,)), (args, err)


def test_the_beir_rule_lives_in_the_library(beir: Path, tmp_path: Path) -> None:
    from assay.judgments.beir import corpus_of

    assert corpus_of(beir) == beir / "corpus.jsonl"
    assert corpus_of(beir, tmp_path / "other.csv") == tmp_path / "other.csv"
    assert corpus_of(QUESTIONS) is None
    source = (ROOT / "src" / "assay" / "cli" / "common.py").read_text()
    assert "corpus.jsonl" not in source


# --- --id-field / --text-field wherever a corpus is read ------------------------------------


def test_every_command_reading_a_corpus_takes_id_and_text_fields() -> None:
    # `answers --corpus` takes a corpus or a plain file of ids: only the ids are read
    lacking = [
        name
        for name, command in click_commands()
        if option(command, "--corpus") is not None
        and name != "answers"
        and (option(command, "--id-field") is None or option(command, "--text-field") is None)
    ]
    assert lacking == []


def test_validate_takes_the_id_field_its_error_asks_for(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    corpus = tmp_path / "catalog.csv"
    corpus.write_text("code,name\nA1,unemployment rate\nA2,consumer prices\n")
    assert in_process("validate", str(corpus)) == 2
    assert "--id-field" in capsys.readouterr().err
    assert in_process("validate", str(corpus), "--id-field", "code") == 0
    capsys.readouterr()
    rc = in_process("validate", str(corpus), "--id-field", "code", "--text-field", "nosuch")
    assert rc == 2 and "nosuch" in capsys.readouterr().err


# --- exit 141 on a broken pipe ---------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG)],
        ["evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG), "-f", "json"],
        ["compare", str(QUESTIONS), "--system", "keyword", "--system", "bm25", "--config",
         str(CONFIG), "--resamples", "200", "--permutations", "200"],
        ["validate", str(QUESTIONS)],
    ],
    ids=["evaluate", "evaluate-json", "compare", "validate"],
)  # fmt: skip
def test_broken_pipe_exits_141(args: list[str], tmp_path: Path) -> None:
    # head has read its line and gone before assay starts writing: a broken pipe every time
    record = ["--no-record"] if args[0] in ("evaluate", "compare") else []
    command = shlex.join([*CMD, *args, *record])
    script = f"{{ echo first; {command}; }} | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}"
    proc = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=180
    )
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr


# --- help offers what the command accepts, in plain words ------------------------------------

#: A cheap invocation of every command whose -o help lists result suffixes.
SUFFIX_COMMANDS: dict[str, list[str]] = {
    "evaluate": [str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG), "--no-record"],
    "compare": [str(QUESTIONS), "--system", "keyword", "--system", "keyword-names-only",
                "--config", str(CONFIG), "--resamples", "100", "--permutations", "100",
                "--no-record"],
    "verify-suite": [str(QUESTIONS), "--system", "keyword", "--degraded", "keyword-names-only",
                     "--config", str(CONFIG), "--no-record"],
    "history": [],
    "answers": [str(CASES), "--no-record"],
    "gate": [str(QUESTIONS), str(DATA / "runs" / "names.trec"), "--baseline",
             str(DATA / "results" / "evaluation.json"), "--resamples", "200", "--no-record"],
    "matrix": [str(ROOT / "examples" / "matrix" / "matrix.toml"), "--no-record"],
    "validate": [str(QUESTIONS)],
    "judge agree": [str(QUESTIONS), str(QUESTIONS)],
    "tune": [str(QUESTIONS), "--system", "bm25", "--config", str(CONFIG), "--param", "k1=0.9,1.2",
             "-m", "RR", "--folds", "2", "--no-record", "-q"],
    "judge calibrate": [str(QUESTIONS), str(DATA / "runs" / "keyword.trec"), "--human",
                        str(DATA / "judgments" / "statistics_human_sample.csv")],
}  # fmt: skip
SUFFIX = re.compile(r"(?<![\w/])(\.[a-z]+)\b")


def _offered(command: Any) -> set[str]:
    out = option(command, "--output")
    return {s for s in SUFFIX.findall(out.help or "") if s in SUFFIX_FORMATS} if out else set()


def test_every_command_offering_suffixes_is_checked() -> None:
    offering = {name for name, command in click_commands() if _offered(command)}
    assert offering == set(SUFFIX_COMMANDS)


@pytest.mark.parametrize("name", sorted(SUFFIX_COMMANDS))
def test_help_offers_every_suffix_accepted_and_none_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    command = dict(click_commands())[name]
    offered = _offered(command)
    for suffix in SUFFIX_FORMATS:
        target = tmp_path / f"out{suffix}"
        rc = in_process(*name.split(), *SUFFIX_COMMANDS[name], "-o", str(target))
        err = capsys.readouterr().err
        if suffix in offered:
            assert rc in (0, 1) and target.is_file(), (name, suffix, err)
        else:
            assert rc == 2 and "this command" in err and not target.exists(), (name, suffix)
            assert all(s in err for s in offered)  # the refusal names what is accepted


def test_no_help_text_shows_rest_markup() -> None:
    import click

    marked = []
    for name, command in click_commands():
        with click.Context(command, info_name=f"assay {name}".strip()) as ctx:
            text = command.get_help(ctx)
        if "``" in text or re.search(r":[a-z]+:`", text):
            marked.append(name)
    assert marked == []


def test_output_to_a_directory_says_it_is_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    for extra in ([], ["-f", "json"]):
        proc = assay(
            "evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG),
            "-o", str(folder), "--no-record", *extra, cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 2
        assert "is a directory" in proc.stderr and "suffix ''" not in proc.stderr
        assert list(folder.iterdir()) == []


# --- every built-in system records its corpus version ---------------------------------------


@pytest.mark.parametrize("system", ["keyword", "bm25", "vector", "hybrid"])
def test_every_builtin_system_records_its_corpus_version(
    system: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from assay.corpora.load import load_corpus

    catalog = EXAMPLE / "catalog.csv"
    fields = 'id_field = "idno"\ntext_fields = ["name", "definition_long"]\n'
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.keyword]\ntype = "keyword"\ncorpus = "{catalog}"\n{fields}\n'
        f'[systems.bm25]\ntype = "bm25"\ncorpus = "{catalog}"\n{fields}\n'
        f'[systems.vector]\ntype = "vector"\nmodel = "wordllama"\ncorpus = "{catalog}"\n{fields}\n'
        '[systems.hybrid]\ntype = "hybrid"\nsystems = ["bm25", "vector"]\n'
    )
    monkeypatch.chdir(tmp_path)
    expected = load_corpus(catalog, id_field="idno").version
    run = tmp_path / f"{system}.trec"
    args = ["--system", system, "--config", str(config), "--no-cache", "--no-progress", "-q"]
    assert in_process("run", str(QUESTIONS), *args, "-o", str(run)) == 0, capsys.readouterr()
    assert json.loads(Path(f"{run}.json").read_text())["corpus_version"] == expected
    result = tmp_path / "result.json"
    args = [*args[:-2], "-q", "--no-record", "-o", str(result)]
    assert in_process("evaluate", str(QUESTIONS), *args) == 0, capsys.readouterr()
    assert f'"corpus_version": "{expected}"' in result.read_text()


# --- CLI warnings name flags, the library names parameters ------------------------------------


def test_version_mismatch_warning_names_the_flag_in_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    edited = tmp_path / "edited.csv"
    edited.write_text(QUESTIONS.read_text().replace("jobless rate", "jobless rate today"))
    args = ["--system", "keyword", "--config", str(CONFIG), "--no-cache", "--no-progress"]
    assert in_process("run", str(edited), *args, "-q", "-o", "kw.trec") == 0
    capsys.readouterr()
    for fmt in ("table", "plain"):
        rc = in_process(
            "evaluate", str(QUESTIONS), "kw.trec", "--allow-version-mismatch", "-f", fmt,
            "--no-record",
        )  # fmt: skip
        out = capsys.readouterr().out
        assert rc == 0 and "scored anyway: --allow-version-mismatch" in out, out
        assert "allow_version_mismatch" not in out
    # the result file is the library's, the same through every door: it names the parameter
    assert in_process("evaluate", str(QUESTIONS), "kw.trec", "--allow-version-mismatch",
                      "-o", "r.json", "--no-record") == 0  # fmt: skip
    assert "`allow_version_mismatch`" in Path("r.json").read_text()
    import assay

    result = assay.evaluate(
        QUESTIONS, "kw.trec", options=assay.ScoringOptions(allow_version_mismatch=True)
    )
    assert any("`allow_version_mismatch`" in w for w in result.run.warnings)


# --- trec-eval with the run first hints that qrels come first ---------------------------------


def test_trec_eval_with_swapped_arguments_says_qrels_come_first(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    qrels, run = tmp_path / "test.qrels", tmp_path / "bm25.run"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(20)))
    run.write_text("".join(f"q{i} Q0 d{i} 1 2.5 bm25\n" for i in range(20)))
    assert in_process("trec-eval", str(run), str(qrels)) == 2
    err = capsys.readouterr().err
    assert "qrels come first" in err
    assert len(err.strip().splitlines()) == 1  # one hint, not one error per line
    assert in_process("trec-eval", str(qrels), str(run), "-m", "map") == 0
    assert capsys.readouterr().out.split() == ["map", "all", "1.0000"]


# --- judge commands: agree with nothing to compare, sample --queries, export --base ----------


def _grade_everything(pool: Path, store: Path, grade: str) -> None:
    """Two assessors give every pooled pair ``grade`` through the judging web app."""
    from fastapi.testclient import TestClient

    from assay.judging.serve import prepare

    app, links = prepare(pool, str(store), assessors=["alice"], base_url="http://testserver")
    client = TestClient(app)
    client.get(links["alice"].removeprefix("http://testserver"))
    html = client.get("/").text
    for _ in range(50):  # bounded
        if 'name="pair"' not in html:
            break
        csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
        pair = re.search(r'name="pair" value="(\d+)"', html).group(1)  # type: ignore[union-attr]
        html = client.post(
            "/act",
            data={"csrf": csrf, "pair": pair, "value": grade},
            headers={"HX-Request": "true"},
        ).text
    assert 'id="all-done"' in html


def test_judge_export_base_keeps_no_answer_questions(tmp_path: Path) -> None:
    from assay import load_judgments

    pool = tmp_path / "pool.jsonl"
    pairs = [("q15", "inflation rate", "CPI_INFL_PCT"), ("q01", "how many people go hungry",
             "PV_HEADCOUNT_NPL_PCT")]  # fmt: skip
    pool.write_text(
        "".join(json.dumps({"query_id": q, "query": t, "doc_id": d}) + "\n" for q, t, d in pairs)
    )
    _grade_everything(pool, tmp_path / "judging.db", "2")
    proc = assay(
        "judge", "export", "--store", "judging.db", "--base", str(QUESTIONS), "-o", "j.jsonl",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "kept no-answer" in proc.stderr
    merged, base = load_judgments(tmp_path / "j.jsonl"), load_judgments(QUESTIONS)
    no_answer = {q.query_id for q in base if q.no_answer}
    assert "q15" in no_answer
    assert {q.query_id for q in merged if q.no_answer} == no_answer
    assert merged.qrels_dict()["q01"]["PV_HEADCOUNT_NPL_PCT"] == 2  # answerable: merged


def test_judge_agree_on_an_unfilled_review_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    assert in_process("judge", "sample", str(QUESTIONS), "-o", "review.jsonl") == 0
    capsys.readouterr()
    assert in_process("judge", "agree", "review.jsonl", str(QUESTIONS)) == 2
    out, err = capsys.readouterr()
    assert "nothing to compare" in err and "fill reviewer_grade" in err
    assert "n/a" not in out


def test_judge_sample_on_trec_qrels_takes_queries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    qrels, topics = tmp_path / "test.qrels", tmp_path / "topics.tsv"
    qrels.write_text("".join(f"q{i} 0 d{i} {i % 2}\n" for i in range(10)))
    topics.write_text("".join(f"q{i}\tquestion number {i}\n" for i in range(10)))
    assert in_process("judge", "sample", str(qrels), "-o", "bare.jsonl") == 0
    err = capsys.readouterr().err
    assert "no query text" in err and "--queries" in err
    rc = in_process("judge", "sample", str(qrels), "--queries", str(topics), "-o", "r.jsonl")
    assert rc == 0 and "no query text" not in capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert lines and all(x["query"] == f"question number {x['query_id'][1:]}" for x in lines)


# --- matrix --gate-against checks its baseline before any model call -------------------------


def test_matrix_refuses_a_wrong_baseline_before_any_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import shutil

    from llm_stub import StubServer

    example = ROOT / "examples" / "matrix"
    for name in ("cases.jsonl", "answerer.py"):
        shutil.copy(example / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    # a baseline of other variants (the offline example's) and one on other cases
    assert in_process("matrix", str(example / "matrix.toml"), "-o", "offline.json") == 0
    (tmp_path / "few.jsonl").write_text((example / "cases.jsonl").read_text().splitlines()[0])
    (tmp_path / "few.toml").write_text(
        (example / "matrix.toml").read_text().replace('"cases.jsonl"', '"few.jsonl"')
    )
    shutil.copytree(example / "prompts", tmp_path / "prompts")
    assert in_process("matrix", "few.toml", "-o", "few.json", "--no-record") == 0
    capsys.readouterr()
    with StubServer() as stub:
        (tmp_path / "models.toml").write_text(
            f'[matrix]\ncases = "cases.jsonl"\nrepeats = 1\n[prompts.p]\ntext = "answer"\n'
            f'[models.stub]\nbase_url = "{stub.base_url}"\nmodel = "stub-small"\n'
            'api_key = "sk-test"\ninput_price = 1.0\noutput_price = 1.0\n'
            '[baselines.extractive]\nfunction = "answerer.py:answer"\n'
        )
        for baseline, says in (
            ("few.json", "same fixed evidence"),
            ("offline.json", "share no variant"),
            (str(QUESTIONS), str(QUESTIONS)),
        ):
            if baseline == "offline.json":  # same cases, other variants
                text = (tmp_path / "models.toml").read_text()
                (tmp_path / "models.toml").write_text(text.replace("extractive]", "mine]"))
            rc = in_process("matrix", "models.toml", "--gate-against", baseline, "--no-cache")
            err = capsys.readouterr().err
            assert rc == 2 and says in err, (baseline, err)
        assert stub.state.requests == []  # refused before the first call
        rc = in_process("matrix", "models.toml", "--no-cache", "--no-record")
        assert rc == 0 and len(stub.state.requests) > 0  # the same config does call the model


def test_python_dash_m_assay_is_the_assay_program() -> None:
    """`python -m assay` runs the same app as the `assay` script (help, exit code)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "assay", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("assay ")
    bad = subprocess.run(
        [sys.executable, "-m", "assay", "evaluate", "no-such-file.jsonl", "no-such-run.trec"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
