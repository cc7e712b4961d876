"""trec_eval ``-R qrels_jg``: both quicktest lines, the NIST binary on random groups, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import InputError, UsageError
from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.qrels_jg import load_qrels_jg
from assay.metrics.treceval import trec_eval_lines
from assay.runs.io import load_run
from helpers_trec_eval import assay_trec_eval, trec_eval_options, trec_eval_output


@pytest.fixture(scope="module")
def te(shared_data: Path) -> Path:
    return shared_data / "trec_eval_tests"


@pytest.mark.parametrize("qrels", ["qrels.123", "qrels.comments.123"])
def test_quicktest_qrels_jg(te: Path, qrels: str) -> None:
    lines = trec_eval_lines(
        load_qrels_jg(te / qrels), load_run(te / "results.test"), ["qrels_jg"], per_query=True
    )
    assert "\n".join(lines) + "\n" == (te / "out.test.qrels_jg").read_text()


def test_cli_prints_the_qrels_jg_bytes(te: Path, tmp_path: Path) -> None:
    args = ["-m", "qrels_jg", "-q", "-R", "qrels_jg", str(te / "qrels.comments.123")]
    done = assay_trec_eval([*args, str(te / "results.test")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (te / "out.test.qrels_jg").read_bytes()


def test_one_group_is_plain_map_and_p(te: Path) -> None:
    run = load_run(te / "results.test")
    plain = trec_eval_lines(load_trec_eval_qrels(te / "qrels.test"), run, ["map", "P.5"])
    groups = trec_eval_lines(load_qrels_jg(te / "qrels.test"), run, ["map_avgjg", "P_avgjg.5"])
    assert [line.split("\t")[2] for line in plain] == [line.split("\t")[2] for line in groups]


def test_measures_need_their_judgments_format(te: Path) -> None:
    run = load_run(te / "results.test")
    with pytest.raises(UsageError, match="needs -R qrels_jg"):
        trec_eval_lines(load_trec_eval_qrels(te / "qrels.test"), run, ["map_avgjg"])
    with pytest.raises(UsageError, match="needs -R qrels"):
        trec_eval_lines(load_qrels_jg(te / "qrels.123"), run, ["map"])


def test_duplicate_doc_in_a_group_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "jg").write_text("q1 a d1 1\nq1 b d1 0\nq1 a d1 0\n")
    with pytest.raises(InputError) as err:
        load_qrels_jg(tmp_path / "jg")
    assert "jg:3:" in str(err.value) and "duplicate" in str(err.value)


def test_cli_bad_qrels_jg_exits_2(te: Path, tmp_path: Path) -> None:
    (tmp_path / "jg").write_text("q1 a d1\n")
    args = ["-R", "qrels_jg", "-m", "qrels_jg", str(tmp_path / "jg"), str(te / "results.test")]
    done = assay_trec_eval(args, tmp_path)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "jg:1:" in err and "Traceback" not in err


def test_cli_unknown_rel_format_exits_2(te: Path, tmp_path: Path) -> None:
    done = assay_trec_eval(
        ["-R", "nope", str(te / "qrels.test"), str(te / "results.test")], tmp_path
    )
    assert done.returncode == 2 and b"-R must be one of" in done.stderr


# --- the NIST binary on random inputs -------------------------------------------------

DOCS = [f"d{i}" for i in range(8)]


@st.composite
def cases(draw):
    options = trec_eval_options(draw)
    qrels, run = [], []
    nq = draw(st.integers(1, 3))
    for q in range(nq):
        for jg in draw(st.lists(st.sampled_from(["0", "1", "b", "a2"]), unique=True, min_size=1)):
            judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=7))
            qrels += [f"q{q} {jg} {d} {draw(st.sampled_from([0, 1, 2, -1]))}" for d in judged]
        if draw(st.booleans()) or not options["complete"]:
            ret = draw(st.lists(st.sampled_from([*DOCS, "u1"]), unique=True, min_size=1))
            run += [f"q{q} Q0 {d} {r} {draw(st.integers(0, 3))} t" for r, d in enumerate(ret, 1)]
    if not run:
        run.append("q0 Q0 d0 1 1 t")
    return qrels, run, options


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_qrels_jg_matches_trec_eval(trec_eval_bin: Path, tmp_path_factory, case) -> None:
    qrels, run, options = case
    folder = tmp_path_factory.mktemp("jgoracle")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    flags = ["-q", "-R", "qrels_jg", "-m", "qrels_jg", f"-l{options['rel']}"]
    flags += ["-c"] if options["complete"] else []
    flags += ["-J"] if options["judged_only"] else []
    flags += [f"-M{options['depth']}"] if options["depth"] else []
    expected = trec_eval_output(
        trec_eval_bin, flags, str(folder / "qrels"), str(folder / "run"), timeout=30
    )
    ours = trec_eval_lines(
        load_qrels_jg(folder / "qrels"), load_run(folder / "run"), ["qrels_jg"],
        per_query=True, **options,
    )  # fmt: skip
    assert ours == expected
