"""The NIST trec_eval binary as a test oracle, built once into an ignored folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT.parent / "shared" / "tools" / "trec_eval" / "build.sh"
DEST = ROOT / ".cache" / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval_bin() -> Path:
    """Path of a built trec_eval 10.0 (skips without the source or a C compiler)."""
    binary = DEST / "trec_eval"
    if binary.is_file():
        return binary
    if not BUILD.is_file():
        pytest.skip("trec_eval source not present (../shared/tools/trec_eval)")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler to build trec_eval")
    done = subprocess.run(
        ["bash", str(BUILD), str(DEST)], capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode != 0 or not binary.is_file():
        pytest.skip(f"trec_eval did not build: {done.stderr.strip()[:200]}")
    return binary
