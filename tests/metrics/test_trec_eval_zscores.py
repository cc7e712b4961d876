"""trec_eval ``-Z``: the quicktest line, the NIST binary on random z-score files, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import InputError
from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.treceval import trec_eval_lines, trec_outputs
from assay.metrics.zscores import MISSING_ZSCORE, ZScores, load_zscores
from assay.runs.io import load_run
from helpers_trec_eval import assay_trec_eval, trec_eval_output


@pytest.fixture(scope="module")
def te(shared_data: Path) -> Path:
    return shared_data / "trec_eval_tests"


def test_quicktest_aqz(te: Path) -> None:
    lines = trec_eval_lines(
        load_trec_eval_qrels(te / "qrels.test"),
        load_run(te / "results.test"),
        ["all_trec"],
        per_query=True,
        zscores=load_zscores(te / "zscores_file"),
    )
    assert "\n".join(lines) + "\n" == (te / "out.test.aqZ").read_text()


def test_cli_prints_the_aqz_bytes(te: Path, tmp_path: Path) -> None:
    args = ["-q", "-m", "all_trec", "-Z", str(te / "zscores_file")]
    done = assay_trec_eval([*args, str(te / "qrels.test"), str(te / "results.test")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (te / "out.test.aqZ").read_bytes()


def test_conversion_rules() -> None:
    zs = ZScores((("q1", "P_5", 0.5, 0.25), ("q1", "map", 0.2, 0.0)))
    assert zs.convert(["q1"], "P_5", [1.0]).tolist() == [2.0]
    assert zs.convert(["q1", "q1"], "map", [0.2, 0.3]).tolist() == [0.0, MISSING_ZSCORE]
    assert zs.convert(["q2"], "P_5", [1.0]).tolist() == [MISSING_ZSCORE]
    assert zs.convert(["q1"], "ndcg", [1.0]).tolist() == [MISSING_ZSCORE]


def test_lookup_reads_one_past_the_block_as_trec_eval() -> None:
    # trec_eval's binary search ends one entry past q1's block: q2's first measure
    zs = ZScores((("q1", "map", 0.2, 0.1), ("q2", "utility", 1.0, 2.0)))
    assert zs.lookup("q1", "utility") == (1.0, 2.0)
    assert zs.lookup("q1", "P_5") is None
    assert zs.lookup("q2", "zzz") is None


@pytest.mark.parametrize(
    ("text", "where", "field"),
    [
        ("q1 map 0.1 0.2\nq1 map 0.3\n", ":2:", "stddev"),
        ("q1 map\n", ":1:", "mean"),
        ("q1 map 0.1 0.2 9\n", ":1:", "stddev"),
        ("q1 map zero 0.2\n", ":1:", "mean"),
        ("q1 map 0.1 0.2\nq1 map 0.1 0.2\n", ":2:", "measure"),
    ],
)
def test_bad_zscore_file_names_file_line_field(tmp_path: Path, text, where, field) -> None:
    path = tmp_path / "z.txt"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_zscores(path)
    message = str(err.value)
    assert f"z.txt{where}" in message and f"[{field}]" in message


def test_empty_zscore_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "z.txt").write_text("\n")
    with pytest.raises(InputError, match="empty z-score file"):
        load_zscores(tmp_path / "z.txt")


def test_cli_bad_zscore_file_exits_2(te: Path, tmp_path: Path) -> None:
    (tmp_path / "z.txt").write_text("301 map 0.1 x\n")
    args = ["-Z", str(tmp_path / "z.txt"), str(te / "qrels.test"), str(te / "results.test")]
    done = assay_trec_eval(args, tmp_path)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "z.txt:1: [stddev]" in err and "Traceback" not in err
    assert done.stdout == b""


# --- the NIST binary on random inputs -------------------------------------------------

DOCS = [f"d{i}" for i in range(8)]
NAMES = [o.name for o in trec_outputs(["all_trec"])] + ["gm_map", "gm_bpref", "num_q"]


@st.composite
def cases(draw):
    nq = draw(st.integers(1, 3))
    complete = draw(st.booleans())
    qrels, run = [], []
    for q in range(nq):
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
        qrels += [f"q{q} 0 {d} {draw(st.sampled_from([0, 1, 2]))}" for d in judged]
        if draw(st.booleans()) or not complete:
            ret = draw(st.lists(st.sampled_from([*DOCS, "u1"]), unique=True, min_size=1))
            run += [f"q{q} Q0 {d} {r} {len(ret) - r} t" for r, d in enumerate(ret, 1)]
    if not run:
        run.append("q0 Q0 d0 1 1 t")
    zlines = []
    for q in range(nq + 1):  # q{nq} has no judgments
        if draw(st.integers(0, 3)) == 0:
            continue  # query without any z-score line
        for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=25)):
            mean = draw(st.sampled_from(["0", "1", "0.25", "-2.5", "3"]))
            sd = draw(st.sampled_from(["0", "0.5", "1", "2.25", "0.1"]))
            zlines.append(f"q{q} {name} {mean} {sd}")
    # trec_eval's lookups read one entry past a block (see assay.metrics.zscores): past the
    # last query's block that is outside its memory (it may crash), so a last query, sorting
    # after every other, closes the file
    zlines.append("zz ~ 0 1")
    return qrels, run, zlines, complete


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_zscores_match_trec_eval(trec_eval_bin: Path, tmp_path_factory, case) -> None:
    qrels, run, zlines, complete = case
    folder = tmp_path_factory.mktemp("zoracle")
    for name, lines in (("qrels", qrels), ("run", run), ("z", zlines)):
        (folder / name).write_text("\n".join(lines) + "\n")
    flags = ["-q", "-m", "all_trec", "-Z", str(folder / "z"), *(["-c"] if complete else [])]
    expected = trec_eval_output(
        trec_eval_bin, flags, str(folder / "qrels"), str(folder / "run"), timeout=30
    )
    ours = trec_eval_lines(
        load_trec_eval_qrels(folder / "qrels"),
        load_run(folder / "run"),
        ["all_trec"],
        per_query=True,
        complete=complete,
        zscores=load_zscores(folder / "z"),
    )
    assert ours == expected


@pytest.mark.parametrize(
    ("rel_format", "qrels", "run", "measures"),
    [
        ("prefs", "prefs.test", "prefs.results.test", ["prefs_simp", "prefs_num_prefs_poss"]),
        ("qrels_jg", "qrels.123", "results.test", ["P_avgjg_5", "map_avgjg", "num_q"]),
    ],
)
def test_zscores_of_prefs_and_groups_match_trec_eval(
    trec_eval_bin: Path, te: Path, tmp_path: Path, rel_format, qrels, run, measures
) -> None:
    from assay.metrics.treceval import read_rel_info

    judgments = read_rel_info(te / qrels, rel_format)
    qids = judgments.query_ids if rel_format == "prefs" else ["301", "302", "303"]
    z = [f"{q} {m} {0.25 * k} {[0, 0.5, 2][k % 3]}" for k, q in enumerate(qids) for m in measures]
    (tmp_path / "z").write_text("\n".join([*z, "zz ~ 0 1"]) + "\n")
    spec = "all_prefs" if rel_format == "prefs" else "qrels_jg"
    args = ["-q", "-m", spec, "-R", rel_format, "-Z", str(tmp_path / "z")]
    expected = trec_eval_output(trec_eval_bin, args, str(te / qrels), str(te / run), timeout=60)
    ours = trec_eval_lines(
        judgments,
        load_run(te / run),
        [spec],
        per_query=True,
        zscores=load_zscores(tmp_path / "z"),
    )
    assert ours == expected
