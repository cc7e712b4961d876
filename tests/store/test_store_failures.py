"""Broken stores through the CLI: damaged bytes, read-only files and folders, mistyped URLs.

Damaged or unreadable stores exit 2 with a message naming the store (never
exit 1 with "unexpected"); ``assay history`` reads a store it may not write;
a URL that is neither a known database URL nor a plain path is refused
before anything is created.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli.app import main

QRELS = "".join(
    json.dumps({"query_id": f"q{i}", "query": f"query {i}", "relevant": {f"d{i}": 1}}) + "\n"
    for i in range(40)
)
RUN = "".join(f"q{i} Q0 d{i + i % 3} 1 2.0 sys\n" for i in range(40))
PAGE = 4096  # SQLite's default page size, the one assay's stores use


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.err + out.out


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A SQLite store holding a few evaluations of run.trec on q.jsonl."""
    (tmp_path / "q.jsonl").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    db = tmp_path / "h.db"
    argv = ["evaluate", str(tmp_path / "q.jsonl"), str(tmp_path / "run.trec")]
    for _ in range(4):
        assert _run([*argv, "--store", str(db), "-f", "json"], capsys)[0] == 0
    assert db.stat().st_size >= 4 * PAGE
    return db


def _commands(tmp_path: Path, db: Path) -> dict[str, list[str]]:
    gate = ["gate", str(tmp_path / "q.jsonl"), str(tmp_path / "run.trec"), "--baseline", "last"]
    return {
        "history": ["history", "--store", str(db), "--kind", "all"],
        "gate": [*gate, "--store", str(db), "--no-record"],
    }


def _check_refusal(code: int, text: str, db: Path) -> None:
    assert "unexpected" not in text and "Traceback" not in text, text
    assert code == 2, text
    assert str(db) in text, text


def test_damaged_pages_exit_2_naming_the_store(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(recorded.read_bytes())
    for start in range(PAGE, len(data), PAGE):  # every b-tree page header after the first
        data[start : start + 8] = b"\x0d\xff\xff\xff\xff\xff\xff\xff"
    recorded.write_bytes(bytes(data))
    for argv in _commands(tmp_path, recorded).values():
        _check_refusal(*_run(argv, capsys), recorded)


def test_random_damage_never_exits_1(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes overwritten at seeded places: the store reads, or is refused naming it."""
    clean = recorded.read_bytes()
    refused = 0
    for seed in range(8):
        rng = random.Random(seed)
        data = bytearray(clean)
        for _ in range(6):
            at = rng.randrange(100, len(data) - 32)
            data[at : at + 32] = rng.randbytes(32)
        recorded.write_bytes(bytes(data))
        for name, argv in _commands(tmp_path, recorded).items():
            code, text = _run(argv, capsys)
            assert "unexpected" not in text and "Traceback" not in text, (seed, name, text)
            assert code in (0, 1, 2) if name == "gate" else code in (0, 2), (seed, name, text)
            if code == 2 and "store" in text:
                refused += 1
                assert str(recorded) in text, text
    assert refused > 0  # the damage was noticed at least once


def _without_write_access() -> list[str]:
    """A command prefix that takes away root's power to write anyone's files."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a file read-only for root")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", "--"]


def _history_json(db: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [*_without_write_access(), sys.executable, "-c", "from assay.cli import main; main()"]
    cmd += ["history", "--store", str(db), "-f", "json"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("where", ["file", "folder"])
def test_history_reads_a_read_only_store(recorded: Path, tmp_path: Path, where: str) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "h.db"
    shutil.copy(recorded, db)
    before = db.read_bytes()
    db.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    if where == "folder":
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    try:
        probe = _history_json(db, tmp_path)
        assert probe.returncode == 0, probe.stderr
        rows = json.loads(probe.stdout)["rows"]
        assert len(rows) == 4 and {r["system"] for r in rows} == {"sys"}
        if where == "folder":
            assert sorted(p.name for p in folder.iterdir()) == ["h.db"]
    finally:
        folder.chmod(stat.S_IRWXU)
    assert db.read_bytes() == before


def test_gate_reads_its_last_baseline_from_a_read_only_store(
    recorded: Path, tmp_path: Path
) -> None:
    """``gate --baseline last --no-record`` only reads the store: a read-only one will do."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "h.db"
    shutil.copy(recorded, db)
    before = db.read_bytes()
    db.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    cmd = [*_without_write_access(), sys.executable, "-c", "from assay.cli import main; main()"]
    cmd += [*_commands(tmp_path, db)["gate"], "-f", "json"]
    try:
        probe = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert probe.returncode == 0, probe.stderr
        assert json.loads(probe.stdout)["passed"] is True
        assert sorted(p.name for p in folder.iterdir()) == ["h.db"]
    finally:
        folder.chmod(stat.S_IRWXU)
    assert db.read_bytes() == before


@pytest.mark.parametrize("url", ["::::", "sqlite:x.db", "foo://x", "mysql://u@h/db", "h.db:"])
def test_mistyped_store_urls_are_refused(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, text = _run(["history", "--store", url], capsys)
    assert code == 2 and "--store" in text and url in text, text
    monkeypatch.setenv("ASSAY_STORE", url)
    code, text = _run(["history"], capsys)
    assert code == 2 and "$ASSAY_STORE" in text, text
    (tmp_path / "pool.jsonl").write_text(
        json.dumps({"query_id": "q", "query": "x", "doc_id": "d", "document": {"text": "t"}})
    )
    code, text = _run(["judge", "serve", "pool.jsonl", "--store", url, "--assessors", "a"], capsys)
    assert code == 2 and url in text, text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.jsonl"]  # nothing created


def test_an_unreadable_store_exits_2_naming_it(recorded: Path, tmp_path: Path) -> None:
    recorded.chmod(0)
    try:
        probe = _history_json(recorded, tmp_path)
    finally:
        recorded.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert probe.returncode == 2 and str(recorded) in probe.stderr, probe.stderr
    assert "Traceback" not in probe.stderr and "unexpected" not in probe.stderr


def test_a_server_that_never_answers_is_refused_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PostgreSQL URL whose port accepts connections but never speaks (another program
    holds it): the store is refused within its connect timeout, exit 2 naming it; the
    default bound applies when the URL sets none, the URL's own otherwise."""
    import socket
    import time

    pytest.importorskip("psycopg")
    from assay.store import db

    monkeypatch.setattr(db, "CONNECT_TIMEOUT_S", 1)  # the default, shortened for the test
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepts (the kernel does), never answers
    port = listener.getsockname()[1]
    try:
        for query in ("", "?connect_timeout=1"):
            url = f"postgresql+psycopg://u@127.0.0.1:{port}/db{query}"
            started = time.monotonic()
            code, text = _run(["history", "--store", url], capsys)
            assert time.monotonic() - started < 20
            assert code == 2 and "Traceback" not in text and "unexpected" not in text, text
            assert f"127.0.0.1:{port}" in text, text
    finally:
        listener.close()
