"""CLI contract: exit codes, no tracebacks, sidecars, result files, default recording."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
QUESTIONS = EXAMPLE / "questions.csv"
CONFIG = EXAMPLE / "assay.toml"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a subprocess (the environment carries the test's ASSAY_STORE)."""
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=180)


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--nosuch"],
        ["nosuchcommand"],
        ["evaluate"],
        ["gate", str(QUESTIONS), "--bogus-flag"],
        ["answers", str(ROOT / "examples" / "answers" / "cases.jsonl"), "--colour"],
    ],
)
def test_usage_errors_exit_2_without_traceback(args: list[str], tmp_path: Path) -> None:
    proc = assay(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Error" in proc.stderr or "error" in proc.stderr


def test_unwritable_output_is_an_input_error(tmp_path: Path) -> None:
    target = tmp_path / "a-directory"
    target.mkdir()
    proc = assay(
        "evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG),
        "-o", str(target), "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert str(target) in proc.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs of the example made with `assay run` (with sidecars), one on edited judgments."""
    work = tmp_path_factory.mktemp("runs")
    edited = work / "edited.csv"
    text = QUESTIONS.read_text(encoding="utf-8")
    edited.write_text(text.replace("jobless rate", "jobless rate today"), encoding="utf-8")
    for judgments, out in ((QUESTIONS, "kw.trec"), (edited, "kw_edited.trec")):
        proc = assay(
            "run", str(judgments), "--system", "keyword", "--config", str(CONFIG),
            "-o", str(work / out), "--no-progress", "--no-cache", cwd=work,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    return work


def test_run_made_on_other_judgments_is_refused(runs: Path) -> None:
    for command in ("evaluate", "compare"):
        extra = [str(runs / "kw.trec")] if command == "compare" else []
        proc = assay(
            command, str(QUESTIONS), *extra, str(runs / "kw_edited.trec"), "--no-record",
            cwd=runs,
        )  # fmt: skip
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "kw_edited.trec was made on judgment-set version" in proc.stderr
        assert "--allow-version-mismatch" in proc.stderr


def test_version_mismatch_can_be_overridden_and_is_reported(runs: Path) -> None:
    proc = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw_edited.trec"), "--no-record",
        "--allow-version-mismatch", "-f", "json", cwd=runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    # the result is the library's, the same through every door: it names the parameter
    assert any("allow_version_mismatch" in w for w in data["run"]["warnings"])
    # the sidecar's provenance reaches the result: system configuration and corpus version
    assert data["run"]["system"]["type"] == "keyword"
    assert data["run"]["corpus_version"].startswith("sha256:")


def test_empty_result_lists_count_as_in_run(runs: Path) -> None:
    """A query the system answered with nothing is not 'missing' (the sidecar says so)."""
    proc = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw.trec"), "--no-record", "-f", "json",
        "--missing", "skip", "-m", "RR", cwd=runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["run"]["missing_queries"] == 0
    assert data["judgments"]["queries"] == 14  # seed 003: 14 scored questions
    assert data["aggregate"]["RR"] == pytest.approx(8 / 14)


def test_output_format_follows_the_suffix_and_report_renders_it(runs: Path) -> None:
    out = runs / "result.json"
    proc = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw.trec"), "--no-record", "-m", "RR",
        "--by", "language", "-o", str(out), cwd=runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["kind"] == "evaluation"
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~_umask()
    direct = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw.trec"), "--no-record", "-m", "RR",
        "--by", "language", "-f", "markdown", cwd=runs,
    )  # fmt: skip
    again = assay("report", str(out), "-f", "markdown", cwd=runs)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == direct.stdout.strip()


def test_report_rejects_a_file_that_is_not_a_result(tmp_path: Path) -> None:
    bad = tmp_path / "table.json"
    bad.write_text("judgments  questions\n", encoding="utf-8")
    proc = assay("report", str(bad), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{bad}:1:" in proc.stderr


def test_judged_ids_are_checked_against_the_corpus(tmp_path: Path) -> None:
    questions = tmp_path / "questions.csv"
    rows = QUESTIONS.read_text(encoding="utf-8").replace("LF_UNEMP_PCT,paraphrase", "LF_NOPE,x")
    questions.write_text(rows, encoding="utf-8")
    proc = assay(
        "evaluate", str(questions), "--system", "keyword",
        "--corpus", str(EXAMPLE / "catalog.csv"), "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "LF_NOPE" in proc.stderr
    assert f"{questions}:5:" in proc.stderr  # q04 is on physical line 5


def test_evaluate_records_by_default(runs: Path, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'h.db'}"
    proc = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw.trec"), "-m", "RR", "--store", store,
        cwd=runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    hist = assay("history", "--store", store, "--format", "json", cwd=runs)
    assert hist.returncode == 0, hist.stderr
    assert "keyword" in hist.stdout


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_abstention_rates_reach_the_report(tmp_path: Path) -> None:
    """--abstain-below: accuracy on no-answer queries and false abstentions, in every format."""
    args = [
        "evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG),
        "--abstain-below", "0.4", "--no-record",
    ]  # fmt: skip
    table = assay(*args, cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert "abstention" in table.stdout and "false-abstention rate" in table.stdout
    data = json.loads(assay(*args, "-f", "json", cwd=tmp_path).stdout)
    ab = data["abstention"]
    # q15 ("inflation rate") tops out at 0.349 < 0.4: abstained, the one no-answer query
    assert ab["no_answer_abstained"] == 1 and ab["abstention_accuracy"] == 1.0
    assert ab["answerable_queries"] == 14
    assert ab["false_abstention_rate"] == pytest.approx(ab["answerable_abstained"] / 14)


def test_compare_runs_live_systems(tmp_path: Path) -> None:
    proc = assay(
        "compare", str(QUESTIONS), "--system", "keyword", "--system", "keyword-names-only",
        "--config", str(CONFIG), "-m", "R@5", "-f", "json", "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (row,) = data["comparisons"]
    assert row["candidate"] == "keyword-names-only"
    assert row["delta"] == pytest.approx(-1 / 14)  # q03 lost (seed 003's worse configuration)
    assert row["verdict"] == "no detectable difference"


def test_a_system_that_always_fails_is_not_scored_as_zero(tmp_path: Path) -> None:
    (tmp_path / "down.py").write_text(
        "def search(query, k):\n    raise ConnectionError('backend down')\n", encoding="utf-8"
    )
    proc = assay(
        "evaluate", str(QUESTIONS), "--system", "down.py:search", "-m", "RR", "--no-record",
        "--retries", "0", "--max-consecutive-failures", "0", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1  # nothing could be scored
    assert "Traceback" not in proc.stderr
    assert "backend down" in proc.stdout  # each failure is reported with its error
    assert re.search(r"^all\s+0\s+-\s*$", proc.stdout, re.MULTILINE)  # no value, not 0.00
    assert "returned nothing" not in proc.stdout  # q15 failed; it did not abstain
    args = ["evaluate", str(QUESTIONS), "--system", "down.py:search", "-m", "RR"]
    again = assay(
        *args, "--no-record", "--retries", "0", "--max-consecutive-failures", "0", "-f", "json",
        cwd=tmp_path,
    )  # fmt: skip
    data = json.loads(again.stdout)
    assert data["aggregate"]["RR"] is None
    assert len(data["run"]["failures"]) == 15
    stopped = assay(*args, "--no-record", "--retries", "0", cwd=tmp_path)  # the circuit breaker
    assert stopped.returncode == 1 and "5 consecutive failures" in stopped.stderr


def test_user_mistakes_get_clear_errors(runs: Path, tmp_path: Path) -> None:
    """Swapped arguments, an -o suffix the command cannot write, a misspelled toml key."""
    swapped = assay("evaluate", str(runs / "kw.trec"), str(QUESTIONS), "--no-record", cwd=runs)
    assert swapped.returncode == 2 and "the judgments come first" in swapped.stderr
    junit = assay(
        "evaluate", str(QUESTIONS), str(runs / "kw.trec"), "--no-record",
        "-o", str(tmp_path / "r.xml"), cwd=runs,
    )  # fmt: skip
    assert junit.returncode == 2 and "cannot write junit" in junit.stderr
    assert not (tmp_path / "r.xml").exists()
    toml = tmp_path / "assay.toml"
    toml.write_text(
        f'[systems.x]\ntype = "keyword"\ncorpus = "{EXAMPLE / "catalog.csv"}"\n'
        'id_field = "idno"\ntext_field = ["name"]\n',
        encoding="utf-8",
    )
    typo = assay(
        "evaluate", str(QUESTIONS), "--system", "x", "--config", str(toml), "--no-record",
        cwd=tmp_path,
    )  # fmt: skip
    assert typo.returncode == 2
    assert f"{toml}:5: [systems.x] text_field: unknown key" in typo.stderr
    assert "did you mean text_fields?" in typo.stderr


def test_trec_qrels_need_query_texts_before_a_system_runs(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 LF_UNEMP_PCT 1\n2 0 HE_U5_MORT_RATE 1\n", encoding="utf-8")
    common = ["--system", "keyword", "--config", str(CONFIG), "--no-record", "-m", "RR"]
    bare = assay("evaluate", str(qrels), *common, cwd=tmp_path)
    assert bare.returncode == 2 and "pass --queries" in bare.stderr
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\tjobless rate\n2\tchild deaths before age 5\n", encoding="utf-8")
    ok = assay(
        "evaluate", str(qrels), "--queries", str(topics), *common, "-f", "json", cwd=tmp_path
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["aggregate"]["RR"] == pytest.approx(1.0)  # both at rank 1
    out = tmp_path / "r.trec"
    run = assay(
        "run", str(qrels), "--queries", str(topics), "--system", "keyword",
        "--config", str(CONFIG), "-o", str(out), "--no-cache", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert out.read_text(encoding="utf-8").splitlines()[0].startswith("1 Q0 LF_UNEMP_PCT 1 ")


def test_a_beir_folder_is_its_own_corpus(shared_data: Path, tmp_path: Path) -> None:
    """`assay evaluate BEIR_FOLDER --system bm25` finds corpus.jsonl in the folder."""
    proc = assay(
        "evaluate", str(shared_data / "beir_scifact"), "--system", "bm25", "-k", "100",
        "-m", "nDCG@10", "-f", "json", "--no-record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["judgments"]["queries"] == 300
    assert data["aggregate"]["nDCG@10"] == pytest.approx(0.679, abs=0.01)  # Lucene BM25 flat
