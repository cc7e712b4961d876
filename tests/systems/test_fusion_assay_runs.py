"""``assay fuse`` reads the runs ``assay run`` writes, old ones (marker line first) too."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from assay.runs.io import TREC_MARKER, load_run
from assay.runs.models import Run
from assay.runs.sidecar import write_run_pair
from assay.systems.fusion import fuse_files, load_ranked_run


def _run(rows: list[tuple[str, str, float]], name: str) -> Run:
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return Run(frame, name=name)


def test_old_marked_runs_fuse_as_plain_ones(tmp_path: Path) -> None:
    a = _run([("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q2", "d3", 1.0)], "a")
    b = _run([("q1", "d2", 5.0), ("q1", "d4", 4.0), ("q2", "d3", 2.0)], "b")
    plain = [tmp_path / "a.trec", tmp_path / "b.trec"]
    write_run_pair(a, plain[0], {"system": "a"}, tag="a")
    write_run_pair(b, plain[1], {"system": "b"}, tag="b")
    assert all(len(line.split()) == 6 for line in plain[0].read_text().splitlines())
    marked = []
    for path in plain:  # the same runs as an older `assay run` wrote them: marker line first
        out = tmp_path / f"marked-{path.name}"
        out.write_bytes(TREC_MARKER + b" sidecar x.json; keep the two files together\n")
        out.write_bytes(out.read_bytes() + path.read_bytes())
        marked.append(out)
    assert load_ranked_run(marked[0]).frame["rank"].tolist() == [1, 2, 1]
    fused_marked = fuse_files(marked, method="rrf", name="f")
    fused_plain = fuse_files(plain, method="rrf", name="f")
    pd.testing.assert_frame_equal(
        fused_marked.frame.reset_index(drop=True), fused_plain.frame.reset_index(drop=True)
    )
    assert len(load_run(marked[1]).frame) == 3
