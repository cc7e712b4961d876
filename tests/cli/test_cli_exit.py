"""The program's quick exit (:func:`assay.cli.script`): nothing a normal exit does is lost.

After the command, ``script`` joins non-daemon threads, runs ``atexit``
handlers and flushes the standard streams, then ends the process without the
interpreter's teardown. Each test runs a real interpreter and checks one of
those duties through what survives the process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay import __version__


def _program(body: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``body`` (Python) then ``script()`` with ``args`` as the command line."""
    argv = ["assay", *args]
    code = f"import sys\n{body}\nfrom assay.cli import script\nsys.argv = {argv!r}\nscript()\n"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_atexit_handlers_and_threads_finish_before_the_exit(tmp_path: Path) -> None:
    body = (
        "import atexit, threading, time\n"
        "atexit.register(lambda: open('handler.txt', 'w').write('ran'))\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    open('thread.txt', 'w').write('done')\n"
        "threading.Thread(target=late).start()\n"
    )
    proc = _program(body, "--version", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert __version__ in proc.stdout
    assert (tmp_path / "handler.txt").read_text() == "ran"
    assert (tmp_path / "thread.txt").read_text() == "done"


def test_buffered_output_reaches_a_pipe_whole(tmp_path: Path) -> None:
    """Output still in Python's buffer when the command returns is flushed, not dropped."""
    # written by an atexit handler, after the command's own output was flushed
    body = "import atexit\natexit.register(lambda: sys.stdout.write('x' * 100))\n"
    proc = _program(body, "--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert __version__ in proc.stdout and proc.stdout.endswith("x" * 100)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["evaluate", "missing-qrels.jsonl", "missing.trec", "--no-record"], 2),
        (["no-such-command"], 2),
        (["schema", "--help"], 0),
    ],
)
def test_exit_codes_are_the_commands(args: list[str], code: int, tmp_path: Path) -> None:
    proc = _program("", *args, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr


def test_python_dash_m_is_the_same_program(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "assay", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0 and __version__ in proc.stdout
