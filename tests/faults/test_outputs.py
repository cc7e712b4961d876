"""Outputs refuse to damage: special-file targets, symlinks, modes; exit codes; no traceback."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli.app import main
from assay.core.errors import UsageError
from assay.io.fileio import write_bytes_atomic, write_text_atomic

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    q = tmp_path / "q.jsonl"
    q.write_text(
        "".join(
            json.dumps({"query_id": f"q{i:03d}", "query": f"t{i}", "relevant": {f"d{i}": 1}}) + "\n"
            for i in range(300)
        )
    )
    r = tmp_path / "r.trec"
    r.write_text("".join(f"q{i:03d} Q0 d{i} 1 1.0 x\n" for i in range(300)))
    return q, r


def _special_targets(tmp_path: Path) -> list[Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    folder = tmp_path / "folder"
    folder.mkdir()
    out = [fifo, sock_path, folder]
    if os.geteuid() == 0:  # a character device like /dev/null, made in the tmp dir only
        dev = tmp_path / "null"
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        out.append(dev)
    return out


def test_special_targets_are_refused_and_left_alone(tmp_path: Path, inputs) -> None:
    q, r = inputs
    for target in _special_targets(tmp_path):
        before = os.lstat(target)
        with pytest.raises(UsageError, match="writes only regular files"):
            write_text_atomic(target, "x")
        assert (
            _run(["evaluate", str(q), str(r), "--no-record", "-f", "json", "-o", str(target)]) == 2
        )
        after = os.lstat(target)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode), target


def test_symlinks_are_followed_and_stay_links(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "made.txt")
    write_text_atomic(dangling, "made")
    assert (tmp_path / "made.txt").read_text() == "made"
    to_fifo = tmp_path / "to-fifo"
    os.mkfifo(tmp_path / "f")
    to_fifo.symlink_to(tmp_path / "f")
    with pytest.raises(UsageError):
        write_text_atomic(to_fifo, "x")


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_follow_the_umask(tmp_path: Path, umask: int, mode: int, inputs) -> None:
    old = os.umask(umask)
    try:
        target = write_bytes_atomic(tmp_path / f"f{umask}", b"x")
        _, r = inputs
        from assay.runs.io import load_run, write_run

        write_run(load_run(r), tmp_path / f"run{umask}.trec")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / f"run{umask}.trec").stat().st_mode) == mode


def test_replacing_keeps_the_existing_mode(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    target.write_text("{}")
    target.chmod(0o640)
    write_text_atomic(target, "[]")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "[]"


def _cli(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC, "ASSAY_RECORD": "0"}
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        capture_output=True, text=True, timeout=60, env=env, **kw,
    )  # fmt: skip


def test_fifo_inputs_do_not_hang(tmp_path: Path, inputs) -> None:
    q, r = inputs
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    for argv in (
        ["evaluate", str(q), str(fifo)],
        ["evaluate", str(fifo), str(r)],
        ["compare", str(q), str(fifo), str(r)],
    ):
        proc = _cli(*argv)  # a hang would hit the 60 s timeout
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "FIFO" in proc.stderr and "Traceback" not in proc.stderr
    proc = _cli("validate", str(fifo))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_broken_pipe_has_its_own_exit_code(monkeypatch, inputs) -> None:
    """``assay ... | head``: the reader went away (simulated: this sandbox's pipes never break)."""
    q, r = inputs

    class Closed:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def isatty(self) -> bool:
            return False

    monkeypatch.setattr(sys, "stdout", Closed())
    assert _run(["evaluate", str(q), str(r), "-f", "json", "--no-record"]) == 141


def test_unexpected_errors_ask_for_a_bug_report(monkeypatch, capsys, inputs) -> None:
    q, r = inputs

    def boom(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("assay.procedures.arguments.parse_measures", boom)
    assert _run(["evaluate", str(q), str(r), "--no-record"]) == 1
    err = capsys.readouterr().err
    assert "unexpected ZeroDivisionError" in err and "bug in assay" in err
    assert "Traceback" not in err
