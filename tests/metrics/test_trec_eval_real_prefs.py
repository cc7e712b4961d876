"""qrels_prefs and qrels_jg on real graded judgments (TREC DL 2019 passage), against trec_eval.

The qrels are read in place; the run is a seeded random ranking of each query's
judged passages plus unjudged ones, with tied scores, so every preference
area (retrieved, implied, neither) and the ``Rnonrel`` recounts are exercised.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.metrics.treceval import read_rel_info, trec_eval_lines
from assay.runs.io import load_run
from helpers_trec_eval import trec_eval_output


@pytest.fixture(scope="module")
def dl19(shared_data: Path, tmp_path_factory) -> tuple[Path, Path]:
    qrels = shared_data / "anserini_topics_qrels" / "dl19_dl20" / "qrels.dl19-passage.txt"
    rng = np.random.default_rng(19)
    by_query: dict[str, list[str]] = {}
    for line in qrels.read_text().splitlines():
        q, _, d, _ = line.split()
        by_query.setdefault(q, []).append(d)
    lines = []
    for q, docs in by_query.items():
        pool = [*rng.permutation(docs)[: int(rng.integers(1, len(docs)))], "x1", "x2", "x3"]
        for rank, d in enumerate(rng.permutation(pool), start=1):
            lines.append(f"{q} Q0 {d} {rank} {int(rng.integers(0, 40))} rnd")
    run = tmp_path_factory.mktemp("dl19") / "run.txt"
    run.write_text("\n".join(lines) + "\n")
    return qrels, run


@pytest.mark.parametrize(
    ("rel_format", "specs", "flags"),
    [
        ("qrels_prefs", ["all_prefs"], {}),
        ("qrels_prefs", ["all_prefs"], {"depth": 50}),
        ("qrels_jg", ["qrels_jg"], {"rel": 2}),
    ],
)
def test_real_judgments_match_trec_eval(trec_eval_bin: Path, dl19, rel_format, specs, flags):
    qrels, run = dl19
    args = ["-q", "-R", rel_format, *(a for s in specs for a in ("-m", s))]
    args += [f"-M{flags['depth']}"] if "depth" in flags else []
    args += [f"-l{flags['rel']}"] if "rel" in flags else []
    expected = trec_eval_output(trec_eval_bin, args, str(qrels), str(run), timeout=120)
    ours = trec_eval_lines(
        read_rel_info(qrels, rel_format), load_run(run), specs, per_query=True, **flags
    )
    assert ours == expected
