"""Property tests against the NIST trec_eval binary itself (built from ../shared/tools).

Random qrels with negative (pooled but unjudged), zero-only and graded
judgments, random runs with tied scores, unjudged documents and queries absent
from either side; trec_eval ``-q -m all_trec`` with random ``-c``, ``-l``,
``-J`` and ``-M``. Every printed line (every measure, every query, the summary)
must equal trec_eval's: values agree to trec_eval's printed precision.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.treceval import trec_eval_lines
from assay.runs.io import load_run
from helpers_trec_eval import trec_eval_options, trec_eval_output

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def cases(draw):
    options = trec_eval_options(draw)
    nq = draw(st.integers(1, 4))
    qrels = []
    for q in range(nq):
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=10))
        kind = draw(st.sampled_from(["graded", "graded", "binary", "zeros"]))
        for d in judged:
            if kind == "zeros":
                grade = draw(st.sampled_from([0, 0, -1]))
            elif kind == "binary":
                grade = draw(st.sampled_from([0, 1, 1, -1]))
            else:
                grade = draw(st.sampled_from([-2, -1, 0, 1, 2, 3]))
            qrels.append(f"q{q} 0 {d} {grade}")
        if all(line.endswith("-1") or line.endswith("-2") for line in qrels[-len(judged) :]):
            qrels.append(f"q{q} 0 extra{q} 0")  # trec_eval needs one grade >= 0 per query
    run = []
    for q in range(nq + 1):  # q{nq} has no judgments: ignored
        # trec_eval 10.0 stops (exit 4) on a judged query absent from the run
        # unless -c is given; trec_eval 9 and assay leave such a query out
        if draw(st.booleans()) or (q < nq and not options["complete"]):
            ret = draw(st.lists(st.sampled_from([*DOCS, "u1", "u2"]), unique=True, min_size=1))
            for rank, d in enumerate(ret, start=1):
                score = draw(st.integers(0, 4))  # many ties
                run.append(f"q{q} Q0 {d} {rank} {score} tag")
    if not run:
        run.append("q0 Q0 d0 1 1 tag")
    return qrels, run, options


def _flags(options: dict) -> list[str]:
    flags = ["-q", "-m", "all_trec", "-m", "relstring.5", f"-l{options['rel']}"]
    flags += ["-c"] if options["complete"] else []
    flags += ["-J"] if options["judged_only"] else []
    flags += [f"-M{options['depth']}"] if options["depth"] else []
    return flags


#: Found by this test: rbp_resid's mean sits on a rounding edge (0.91855), so
#: the per-query value must be computed in trec_eval's order of operations.
_RBP_EDGE = (
    ["q0 0 d0 -2", "q0 0 extra0 0"]
    + [f"q1 0 {d} {g}" for d, g in [("d0", -2), ("d1", -2), ("d11", -2), ("d8", -2)]]
    + [f"q1 0 {d} {g}" for d, g in [("d10", 0), ("d2", -2), ("d3", -2), ("d7", 0)]]
    + ["q1 0 d4 -2", "q1 0 d5 -2"],
    ["q0 Q0 d0 1 0 tag"]
    + [f"q1 Q0 {d} {i} 0 tag" for i, d in enumerate(["d0", "d7", "d8", "d2", "d10"], 1)],
    {"complete": False, "rel": 1, "judged_only": False, "depth": None},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
@example(case=_RBP_EDGE)
def test_every_line_matches_trec_eval(trec_eval_bin: Path, tmp_path_factory, case) -> None:
    qrels, run, options = case
    folder = tmp_path_factory.mktemp("oracle")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    expected = trec_eval_output(
        trec_eval_bin, _flags(options), str(folder / "qrels"), str(folder / "run"), timeout=30
    )
    judgments = load_trec_eval_qrels(folder / "qrels")
    ours = trec_eval_lines(
        judgments,
        load_run(folder / "run"),
        ["all_trec", "relstring.5"],
        per_query=True,
        complete=options["complete"],
        rel=options["rel"],
        judged_only=options["judged_only"],
        depth=options["depth"],
    )
    assert len(ours) == len(expected)
    for mine, theirs in zip(ours, expected, strict=True):
        assert mine == theirs, (mine, theirs, options)
