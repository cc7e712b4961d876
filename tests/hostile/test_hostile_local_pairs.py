"""A run and its sidecar land together or not at all; a run written by `assay run` is
refused without its sidecar; a full disk names the file (a real tmpfs where we may mount)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from assay.cli.app import main

QUERIES = 30


@pytest.fixture()
def project(tmp_path: Path, monkeypatch) -> Path:
    rows = [
        {"query_id": f"q{i}", "query": f"question {i}", "relevant": {f"d{i}": 1}}
        for i in range(QUERIES)
    ]
    (tmp_path / "qrels.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "user.py").write_text(
        "def many(query, k):\n"
        "    n = int(query.split()[1])\n"
        "    if n == 3:\n"
        "        raise RuntimeError('down')\n"
        "    return [f'd{n}'] + [f'document-number-{i:06d}' for i in range(k - 1)]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _main(*argv: str, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


def _run(out: Path, k: int, capsys) -> tuple[int, str]:
    return _main(
        "run",
        "qrels.jsonl",
        "-s",
        "user.py:many",
        "-o",
        str(out),
        "-k",
        str(k),
        "--no-progress",
        "--max-failed",
        "1",
        "--retries",
        "0",
        capsys=capsys,
    )


def test_a_run_without_its_sidecar_is_refused(project: Path, capsys) -> None:
    code, text = _run(project / "x.trec", 5, capsys)
    assert code == 0, text
    code, text = _main("evaluate", "qrels.jsonl", "x.trec", "--max-failed", "1", capsys=capsys)
    assert code == 0, text  # with its sidecar: q3 is reported as failed, not scored 0
    (project / "x.trec.json").unlink()
    code, text = _main("evaluate", "qrels.jsonl", "x.trec", "--max-failed", "1", capsys=capsys)
    assert code == 2, text
    assert "x.trec.json is missing" in text and "unexpected" not in text
    code, text = _main("validate", "x.trec", capsys=capsys)
    assert code == 2 and "x.trec.json is missing" in text, text


def test_jsonl_runs_carry_the_same_marker(project: Path, capsys) -> None:
    code, text = _run(project / "x.jsonl", 3, capsys)
    assert code == 0, text
    (project / "x.jsonl.json").unlink()
    code, text = _main("evaluate", "qrels.jsonl", "x.jsonl", "--max-failed", "1", capsys=capsys)
    assert code == 2 and "x.jsonl.json is missing" in text, text


def test_a_third_party_run_without_sidecar_still_scores(project: Path, capsys) -> None:
    (project / "plain.trec").write_text("q1 Q0 d1 1 2.0 theirs\nq2 Q0 d9 1 1.0 theirs\n")
    code, text = _main("evaluate", "qrels.jsonl", "plain.trec", "--max-failed", "1", capsys=capsys)
    assert code == 0, text


def test_the_marker_line_is_skipped_and_lines_still_counted(project: Path) -> None:
    from assay.errors import InputError
    from assay.runs.io import load_run

    path = project / "m.trec"
    path.write_text("# assay run: sidecar m.trec.json\nq1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    with pytest.raises(InputError) as exc:
        load_run(path)
    assert ":3:" in str(exc.value.problems[0]) and "line 2" in str(exc.value.problems[0])
    path.write_text("# assay run: sidecar m.trec.json\nq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    run = load_run(path)
    assert run.name == "t" and len(run.frame) == 2 and run.metadata["assay_run"] is True


def test_a_failed_rename_leaves_the_old_pair(project: Path, capsys, monkeypatch) -> None:
    code, text = _run(project / "x.trec", 2, capsys)
    assert code == 0, text
    old = (project / "x.trec").read_bytes(), (project / "x.trec.json").read_bytes()
    real = os.replace

    def failing(src: str, dst: str) -> None:
        if str(dst).endswith("x.trec") and ".tmp" in str(src):
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    code, text = _run(project / "x.trec", 5, capsys)
    assert code == 2, text
    assert "x.trec" in text and "No space left on device" in text
    assert ((project / "x.trec").read_bytes(), (project / "x.trec.json").read_bytes()) == old
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".x")) == []


@pytest.fixture()
def tiny_disk(tmp_path: Path):
    """A 64 KiB tmpfs mounted for the test, unmounted after (skipped where we may not mount)."""
    point = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    point.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], capture_output=True, timeout=20, check=False)


def test_a_full_disk_writes_neither_file_and_names_it(project: Path, tiny_disk: Path, capsys):
    code, text = _run(tiny_disk / "small.trec", 2, capsys)
    assert code == 0, text  # a small pair fits
    small = (tiny_disk / "small.trec").read_bytes(), (tiny_disk / "small.trec.json").read_bytes()
    code, text = _run(tiny_disk / "x.trec", 200, capsys)  # about 300 KB: does not fit
    assert code == 2, text
    assert "x.trec" in text and "No space left on device" in text, text
    assert "Traceback" not in text and "unexpected" not in text
    names = sorted(p.name for p in tiny_disk.iterdir())
    assert names == ["small.trec", "small.trec.json"]  # no x.trec, no sidecar, no temp files
    code, text = _run(tiny_disk / "small.trec", 200, capsys)  # replacing a pair: old one kept
    assert code == 2, text
    now = (tiny_disk / "small.trec").read_bytes(), (tiny_disk / "small.trec.json").read_bytes()
    assert now == small
    code, text = _main(
        "evaluate", "qrels.jsonl", str(tiny_disk / "small.trec"), "--max-failed", "1", capsys=capsys
    )
    assert code == 0, text
