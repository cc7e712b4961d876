"""Running the NIST trec_eval binary as a test oracle: one call, one check of its exit code."""

from __future__ import annotations

import subprocess
from pathlib import Path


def trec_eval_output(
    binary: Path, args: list[str], *files: Path | str, timeout: float = 60
) -> list[str]:
    """The lines trec_eval prints for ``args`` and ``files``; fails the test if trec_eval fails."""
    done = subprocess.run(
        [str(binary), *args, *(str(f) for f in files)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


SRC = str(Path(__file__).resolve().parents[1] / "src")


def assay_trec_eval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``assay trec-eval ARGS`` in a fresh interpreter (bytes out, as trec_eval's are compared)."""
    import os
    import sys

    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", "trec-eval", *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": SRC},
        cwd=cwd,
        timeout=120,
        check=False,
    )


def trec_eval_options(draw) -> dict:
    """trec_eval flags drawn for a property test: ``-c``, ``-l``, ``-J`` and ``-M 3``."""
    from hypothesis import strategies as st

    return {
        "complete": draw(st.booleans()),
        "rel": draw(st.sampled_from([1, 1, 2])),
        "judged_only": draw(st.booleans()),
        "depth": draw(st.sampled_from([None, None, 3])),
    }
