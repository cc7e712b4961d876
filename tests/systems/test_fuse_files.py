"""Fusion of TREC run files (``assay fuse``, :func:`fuse_files`) against pyserini's fixtures.

pyserini's expected files (``../shared/data/pyserini_fusion_tests``) are
reproduced byte for byte from the TREC files, ranks read from the rank column.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.runs.io import write_run
from assay.systems.fusion import fuse_files, load_ranked_run

CASES = [
    ("simple_trec_run_rrf_verify.txt", "rrf", {}),
    ("simple_trec_run_interpolation_verify.txt", "interpolation", {"alpha": 0.4}),
    ("simple_trec_run_average_verify.txt", "average", {}),
    ("simple_fusion_normalize_verify.txt", "normalize", {}),
]


@pytest.fixture(scope="module")
def fx(shared_data: Path) -> Path:
    return shared_data / "pyserini_fusion_tests"


def _runs(fx: Path) -> list[Path]:
    return [fx / "simple_trec_run_fusion_1.txt", fx / "simple_trec_run_fusion_2.txt"]


@pytest.mark.parametrize(("expected", "method", "options"), CASES)
def test_library_matches_pyserini(fx: Path, tmp_path: Path, expected, method, options) -> None:
    fused = fuse_files(_runs(fx), method=method, name="test", **options)
    write_run(fused, tmp_path / "out.trec", tag="test", ties="given")
    assert (tmp_path / "out.trec").read_bytes() == (fx / expected).read_bytes()


def test_rrf_reads_the_rank_column(fx: Path) -> None:
    run = load_ranked_run(fx / "simple_trec_run_fusion_2.txt")
    assert run.frame["rank"].tolist() == [1, 3, 1]  # 2054tkb7 is ranked 3rd, on line 2
    fused = fuse_files(_runs(fx), method="rrf").to_dict(ties="given")
    assert fused["1"][1] == ("2054tkb7", 1 / 62 + 1 / 63)


def test_single_run_normalisation(fx: Path, tmp_path: Path) -> None:
    tag = "reciprocal_rank_fusion_k=60"
    fused = fuse_files([fx / "simple_trec_run_fusion_1.txt"], method="minmax", name=tag)
    write_run(fused, tmp_path / "n.trec", tag=tag, ties="given")
    assert (tmp_path / "n.trec").read_bytes() == (
        fx / "simple_trec_run_normalize_verify.txt"
    ).read_bytes()


def test_combsum_combmnz_weighted(fx: Path) -> None:
    runs = _runs(fx)
    combsum = fuse_files(runs, method="combsum").to_dict(ties="given")
    combmnz = fuse_files(runs, method="combmnz").to_dict(ties="given")
    weighted = fuse_files(runs, method="weighted", weights=[0.5, 2.0]).to_dict(ties="given")
    assert combsum["1"][0] == ("pyeb86on", 24 + 2.4)
    assert combmnz["1"][0] == ("pyeb86on", 2 * (24 + 2.4))
    assert combmnz["2"] == [("hanxiao2", 99.0)]
    assert weighted["1"][0] == ("pyeb86on", 0.5 * 24 + 2.0 * 2.4)


def test_cli_fuse_writes_pyserini_bytes(fx: Path, tmp_path: Path) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    out = tmp_path / "fused.trec"
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "fuse"]
    args = [*map(str, _runs(fx)), "--method", "rrf", "--runtag", "test", "-o", str(out)]
    done = subprocess.run(
        [*cmd, *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": src},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (fx / "simple_trec_run_rrf_verify.txt").read_bytes()
