"""Run-level fusion (RRF, min-max, interpolation, average) against pyserini's expected files.

pyserini reads the rank column of a TREC file (fusion_2 has a gap: rank 3 at
position 2), so the RRF check builds runs that keep that column; the score
methods do not depend on ranks and read the files with assay's own loader.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from assay.core.errors import UsageError
from assay.runs.io import load_run
from assay.runs.models import Run
from assay.systems.fusion import (
    fuse_average,
    fuse_interpolation,
    fuse_lists,
    fuse_minmax,
    fuse_rrf,
    fuse_runs,
)

FOLDER = "pyserini_fusion_tests"


def _trec_with_ranks(path: Path) -> Run:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    frame = pd.DataFrame(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[2] for r in rows],
            "rank": [int(r[3]) for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )
    return Run(frame, name=path.stem)


def _expected(path: Path) -> list[tuple[str, str, int, str]]:
    return [
        (r[0], r[2], int(r[3]), r[4])
        for r in (line.split() for line in path.read_text().splitlines() if line.strip())
    ]


def _rows(run: Run) -> list[tuple[str, str, int, float]]:
    out = []
    for qid, hits in run.to_dict(ties="given").items():
        out += [(qid, doc, rank, score) for rank, (doc, score) in enumerate(hits, start=1)]
    return out


def _assert_matches(run: Run, expected_file: Path) -> None:
    got, want = _rows(run), _expected(expected_file)
    assert [(q, d, r) for q, d, r, _ in got] == [(q, d, r) for q, d, r, _ in want]
    for (_, _, _, score), (_, _, _, printed) in zip(got, want, strict=True):
        # pyserini prints Python reprs: same arithmetic gives the same float
        assert score == pytest.approx(float(printed), rel=1e-15, abs=1e-15)


@pytest.fixture(scope="module")
def folder(shared_data: Path) -> Path:
    return shared_data / FOLDER


def test_rrf_matches_pyserini(folder: Path) -> None:
    runs = [_trec_with_ranks(folder / f"simple_trec_run_fusion_{i}.txt") for i in (1, 2)]
    fused = fuse_rrf(runs, k=60, depth=1000, limit=1000)
    _assert_matches(fused, folder / "simple_trec_run_rrf_verify.txt")
    assert fused.metadata["fusion"]["k_rrf"] == 60


def test_rrf_without_rank_column_uses_positions(folder: Path) -> None:
    runs = [load_run(folder / f"simple_trec_run_fusion_{i}.txt") for i in (1, 2)]
    fused = fuse_rrf(runs).to_dict(ties="given")
    # run 2 lists 2054tkb7 second: 1/62 + 1/62
    assert dict(fused["1"])["2054tkb7"] == pytest.approx(2 / 62)
    assert dict(fused["1"])["pyeb86on"] == pytest.approx(2 / 61)


def test_interpolation_matches_pyserini(folder: Path) -> None:
    runs = [load_run(folder / f"simple_trec_run_fusion_{i}.txt") for i in (1, 2)]
    _assert_matches(
        fuse_interpolation(runs, alpha=0.4), folder / "simple_trec_run_interpolation_verify.txt"
    )


def test_average_matches_pyserini(folder: Path) -> None:
    runs = [load_run(folder / f"simple_trec_run_fusion_{i}.txt") for i in (1, 2)]
    _assert_matches(fuse_average(runs), folder / "simple_trec_run_average_verify.txt")


def test_minmax_matches_pyserini_normalize(folder: Path) -> None:
    runs = [load_run(folder / f"simple_trec_run_fusion_{i}.txt") for i in (1, 2)]
    _assert_matches(fuse_minmax(runs), folder / "simple_fusion_normalize_verify.txt")


def test_single_run_normalisation_matches_pyserini(folder: Path) -> None:
    run = load_run(folder / "simple_trec_run_fusion_1.txt")
    _assert_matches(fuse_minmax([run]), folder / "simple_trec_run_normalize_verify.txt")


def test_rrf_by_hand_depth_limit_and_ties() -> None:
    a = [("x", 3.0, 1), ("y", 2.0, 2), ("z", 1.0, 3)]
    b = [("z", 9.0, 1), ("y", 8.0, 2)]
    fused = fuse_lists([a, b], k_rrf=1)
    # y: 1/3 + 1/3, z: 1/4 + 1/2, x: 1/2
    assert fused == [("z", pytest.approx(0.75)), ("y", pytest.approx(2 / 3)), ("x", 0.5)]
    # depth 1: only x and z take part; equal scores break by doc id ascending
    assert fuse_lists([a, b], k_rrf=1, depth=1) == [("x", 0.5), ("z", 0.5)]
    assert fuse_lists([a, b], k_rrf=1, limit=1) == [("z", pytest.approx(0.75))]


def test_weighted_minmax_by_hand() -> None:
    a = [("x", 10.0, 1), ("y", 5.0, 2), ("z", 0.0, 3)]
    b = [("z", 0.9, 1), ("x", 0.1, 2)]
    fused = dict(fuse_lists([a, b], method="minmax", weights=[0.25, 0.75]))
    assert fused == pytest.approx({"x": 0.25, "y": 0.125, "z": 0.75})


def test_queries_missing_from_a_run_are_fused_from_the_others() -> None:
    r1 = Run.from_dict({"q1": [("a", 2.0)], "q2": [("b", 1.0)]}, name="r1")
    r2 = Run.from_dict({"q1": [("a", 5.0)], "q3": [("c", 1.0)]}, name="r2")
    fused = fuse_rrf([r1, r2]).to_dict(ties="given")
    assert list(fused) == ["q1", "q2", "q3"]
    assert fused["q1"][0][1] == pytest.approx(2 / 61)


def test_errors() -> None:
    r1 = Run.from_dict({"q": ["a", "b"]}, name="unscored")
    r2 = Run.from_dict({"q": [("a", 1.0)]}, name="scored")
    assert fuse_rrf([r1, r2]).to_dict()["q"][0][0] == "a"
    with pytest.raises(UsageError, match="needs scores"):
        fuse_minmax([r1, r2])
    with pytest.raises(UsageError, match="exactly two"):
        fuse_interpolation([r2])
    with pytest.raises(UsageError, match="weights"):
        fuse_minmax([r2, r2], weights=[1.0])
    with pytest.raises(UsageError, match="unknown fusion method"):
        fuse_runs([r2, r2], method="borda")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        fuse_rrf([r2, r2], depth=0)
    with pytest.raises(UsageError):
        fuse_rrf([])
