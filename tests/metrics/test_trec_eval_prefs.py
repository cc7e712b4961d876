"""trec_eval ``-R prefs`` / ``qrels_prefs``: the quicktest lines, the NIST binary, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import InputError, UsageError
from assay.judgments.prefs import load_prefs
from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.prefs import query_counts, query_values
from assay.metrics.registry import PREFERENCE_MEASURES
from assay.metrics.treceval import NICKNAMES, trec_eval_lines, trec_outputs
from assay.runs.io import load_run
from helpers_trec_eval import assay_trec_eval, trec_eval_output


@pytest.fixture(scope="module")
def te(shared_data: Path) -> Path:
    return shared_data / "trec_eval_tests"


@pytest.mark.parametrize(
    ("prefs", "run", "fmt", "expected"),
    [
        ("prefs.test", "prefs.results.test", "prefs", "out.test.prefs"),
        ("prefs.comment.test", "prefs.results.test", "prefs", "out.test.prefs"),
        ("qrels.test", "results.test", "qrels_prefs", "out.test.qrels_prefs"),
    ],
)
def test_quicktest_prefs(te: Path, prefs, run, fmt, expected) -> None:
    lines = trec_eval_lines(
        load_prefs(te / prefs, fmt), load_run(te / run), ["all_prefs"], per_query=True
    )
    assert "\n".join(lines) + "\n" == (te / expected).read_text()


def test_cli_prints_the_prefs_bytes(te: Path, tmp_path: Path) -> None:
    args = ["-m", "all_prefs", "-q", "-R", "prefs", str(te / "prefs.comment.test")]
    done = assay_trec_eval([*args, str(te / "prefs.results.test")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (te / "out.test.prefs").read_bytes()


def test_the_measures_come_from_the_registry() -> None:
    names = [p.name for p in PREFERENCE_MEASURES]
    assert list(NICKNAMES["all_prefs"][2:]) == names
    kinds = {o.name: o.kind for o in trec_outputs(["all_prefs"])}
    for p in PREFERENCE_MEASURES:
        assert kinds[p.name] == ("long" if p.aggregate == "sum" else "double")


def test_the_docs_example_counts(tmp_path: Path) -> None:
    # get_prefs.c's example: one sub-group, levels 3 2 0 6 0 2 -> 13 preferences
    levels = [3, 2, 0, 6, 0, 2]
    (tmp_path / "p").write_text("".join(f"q ug s d{i} {v}\n" for i, v in enumerate(levels)))
    prefs = load_prefs(tmp_path / "p")
    ranking = ["d3", "d0", "d1", "d5", "d2", "d4"]  # the ideal order
    values = query_values(query_counts("q", prefs.queries["q"], ranking, "p"))
    assert values["prefs_num_prefs_poss"] == 13
    assert values["prefs_num_prefs_ful"] == 13 and values["prefs_simp"] == 1.0
    reverse = query_values(query_counts("q", prefs.queries["q"], ranking[::-1], "p"))
    assert reverse["prefs_num_prefs_ful"] == 0


def test_transitive_preferences_across_sub_groups(tmp_path: Path) -> None:
    # 1>2, 1>3, 2>3 in sub1; 2>4 in sub2: 1>4 is implied -> 5 preferences
    rows = ["d1 3", "d2 2", "d3 1"], ["d2 5", "d4 4"]
    text = "".join(f"q g s{k} {r}\n" for k, sub in enumerate(rows) for r in sub)
    (tmp_path / "p").write_text(text)
    prefs = load_prefs(tmp_path / "p")
    values = query_values(query_counts("q", prefs.queries["q"], [], "p"))
    assert values["prefs_num_prefs_poss"] == 5


def test_conflicting_sub_groups_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "p").write_text("q g s1 a 2\nq g s1 b 1\nq g s2 b 2\nq g s2 a 1\n")
    prefs = load_prefs(tmp_path / "p")
    with pytest.raises(InputError, match="each preferred to the other"):
        query_counts("q", prefs.queries["q"], ["a"], "p")


@pytest.mark.parametrize(
    ("text", "where", "field"),
    [
        ("q g s d\n", ":1:", "rel_level"),
        ("q g s d 1 x\n", ":1:", "rel_level"),
        ("# c\nq g s d one\n", ":2:", "rel_level"),
        ("q g s d 1\nq g s d 0\n", ":2:", "doc_id"),
        ("q g s d nan\n", ":1:", "rel_level"),
    ],
)
def test_bad_prefs_file_names_file_line_field(tmp_path: Path, text, where, field) -> None:
    (tmp_path / "p.txt").write_text(text)
    with pytest.raises(InputError) as err:
        load_prefs(tmp_path / "p.txt")
    assert f"p.txt{where}" in str(err.value) and f"[{field}]" in str(err.value)


def test_cli_bad_prefs_exits_2(te: Path, tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("q g s d\n")
    args = ["-R", "prefs", "-m", "all_prefs", str(tmp_path / "p.txt"), str(te / "results.test")]
    done = assay_trec_eval(args, tmp_path)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "p.txt:1: [rel_level]" in err and "Traceback" not in err


def test_prefs_measures_need_prefs(te: Path) -> None:
    run = load_run(te / "results.test")
    with pytest.raises(UsageError, match="needs -R prefs"):
        trec_eval_lines(load_trec_eval_qrels(te / "qrels.test"), run, ["prefs_simp"])
    with pytest.raises(UsageError, match="needs -R qrels"):
        trec_eval_lines(load_prefs(te / "prefs.test"), run, ["map"])


# --- the NIST binary on random inputs -------------------------------------------------

DOCS = [f"d{i}" for i in range(8)]


@st.composite
def cases(draw):
    options = {"complete": draw(st.booleans()), "depth": draw(st.sampled_from([None, None, 3]))}
    prefs, run = [], []
    for q in range(draw(st.integers(1, 3))):
        for jg in draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, min_size=1)):
            # one hidden level per doc keeps a group consistent (no cycles, 0 stays 0)
            hidden = {d: draw(st.sampled_from([0, 0, 1, 2, 3])) for d in DOCS}
            for jsg in draw(st.lists(st.sampled_from(["0", "1", "x"]), unique=True, min_size=1)):
                docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
                prefs += [f"q{q} {jg} {jsg} {d} {hidden[d]}" for d in docs]
        if draw(st.booleans()) or not options["complete"]:
            ret = draw(st.lists(st.sampled_from([*DOCS, "u1", "u2"]), unique=True, min_size=1))
            run += [f"q{q} Q0 {d} {r} {draw(st.integers(0, 3))} t" for r, d in enumerate(ret, 1)]
    if not run:
        run.append("q0 Q0 d0 1 1 t")
    return prefs, run, options


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_prefs_match_trec_eval(trec_eval_bin: Path, tmp_path_factory, case) -> None:
    prefs, run, options = case
    folder = tmp_path_factory.mktemp("prefsoracle")
    (folder / "prefs").write_text("\n".join(prefs) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    flags = ["-q", "-R", "prefs", "-m", "all_prefs"]
    flags += ["-c"] if options["complete"] else []
    flags += [f"-M{options['depth']}"] if options["depth"] else []
    expected = trec_eval_output(
        trec_eval_bin, flags, str(folder / "prefs"), str(folder / "run"), timeout=30
    )
    ours = trec_eval_lines(
        load_prefs(folder / "prefs"), load_run(folder / "run"), ["all_prefs"],
        per_query=True, **options,
    )  # fmt: skip
    assert ours == expected
