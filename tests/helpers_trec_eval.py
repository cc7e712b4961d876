"""The NIST trec_eval binary as a test oracle, and ``assay trec-eval`` to compare with it."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path


def run_trec_eval(
    binary: Path, args: list[str], *files: Path | str, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """trec_eval run on ``args`` and ``files``: its exit code, stdout and stderr as bytes."""
    return subprocess.run(
        [str(binary), *args, *(str(f) for f in files)],
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def trec_eval_output(
    binary: Path, args: list[str], *files: Path | str, timeout: float = 60
) -> list[str]:
    """The lines trec_eval prints for ``args`` and ``files``; fails the test if trec_eval fails."""
    done = run_trec_eval(binary, args, *files, timeout=timeout)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8").splitlines()


SRC = str(Path(__file__).resolve().parents[1] / "src")


def assay_trec_eval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``assay trec-eval ARGS`` in a fresh interpreter (bytes out, as trec_eval's are compared)."""
    import os

    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", "trec-eval", *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": SRC},
        cwd=cwd,
        timeout=120,
        check=False,
    )


@functools.cache
def _assay_command():
    """The ``assay`` click command, built once (typer takes about half a second to build it)."""
    from assay.cli.app import _command, _load_commands

    _load_commands()
    return _command()


def assay_trec_eval_here(args: list[str]) -> tuple[int, bytes, bytes]:
    """``assay trec-eval ARGS`` through the CLI's own command, in this interpreter.

    (exit code, stdout, stderr) as bytes: the same argument parsing and printing
    as the ``assay`` script, without a fresh interpreter per call; an
    :class:`~assay.core.errors.AssayError` gives its exit code and message.
    """
    from click.testing import CliRunner

    from assay.core.errors import AssayError

    with CliRunner().isolation() as streams:
        try:
            _assay_command()(args=["trec-eval", *args], standalone_mode=False, prog_name="assay")
            code = 0
        except AssayError as exc:
            print(f"error: {exc}", file=sys.stderr)
            code = exc.exit_code
        sys.stdout.flush()
        sys.stderr.flush()
        return code, streams[0].getvalue(), streams[1].getvalue()


def trec_eval_options(draw) -> dict:
    """trec_eval flags drawn for a property test: ``-c``, ``-l``, ``-J`` and ``-M 3``."""
    from hypothesis import strategies as st

    return {
        "complete": draw(st.booleans()),
        "rel": draw(st.sampled_from([1, 1, 2])),
        "judged_only": draw(st.booleans()),
        "depth": draw(st.sampled_from([None, None, 3])),
    }
