"""A run and its sidecar land together or not at all; a sidecar that does not match its
run (by size and SHA-256) is not used; a full disk names the file (a real tmpfs where we may
mount)."""

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


def test_a_run_without_its_sidecar_scores_as_a_plain_run(project: Path, capsys) -> None:
    code, text = _run(project / "x.trec", 5, capsys)
    assert code == 0, text
    code, text = _main("evaluate", "qrels.jsonl", "x.trec", "--max-failed", "1", capsys=capsys)
    assert code == 0 and "provenance unknown" not in text, text  # q3 reported as failed
    assert "failed" in text
    (project / "x.trec.json").unlink()
    code, text = _main("evaluate", "qrels.jsonl", "x.trec", "--max-failed", "1", capsys=capsys)
    assert code == 0 and "unexpected" not in text, text  # nothing tells it from a plain run
    assert text.count("provenance unknown") == 1, text  # one line says so, on the run line
    assert "x.trec), provenance unknown (no sidecar)" in text, text
    code, text = _main("validate", "x.trec", capsys=capsys)
    assert code == 0, text


def _pair(project: Path, name: str, k: int, capsys) -> tuple[Path, Path]:
    code, text = _run(project / name, k, capsys)
    assert code == 0, text
    return project / name, project / f"{name}.json"


def _evaluate_json(capsys, run: str) -> dict:
    code, text = _main(
        "evaluate", "qrels.jsonl", run, "--max-failed", "1", "-f", "json", capsys=capsys
    )
    assert code == 0, text
    out = json.loads(text[text.index("{") :])
    out["run"]["warnings"] = [w for w in out["run"]["warnings"] if "R@" not in w]  # depth
    return out


def test_a_truncated_run_is_caught_by_the_hash(project: Path, capsys) -> None:
    run, _ = _pair(project, "x.trec", 5, capsys)
    whole = _evaluate_json(capsys, "x.trec")
    assert whole["run"]["failed_queries"] == ["q3"] and not whole["run"]["warnings"]
    lines = run.read_bytes().splitlines(keepends=True)
    run.write_bytes(b"".join(lines[:-5]))  # a crash mid-copy: the last query lost
    cut = _evaluate_json(capsys, "x.trec")
    assert cut["run"]["failed_queries"] == []  # the sidecar's failures are not trusted
    (warning,) = cut["run"]["warnings"]
    assert "x.trec.json does not match" in warning and "bytes" in warning
    assert "provenance unknown" in warning


def test_a_swapped_sidecar_is_caught_by_the_hash(project: Path, capsys) -> None:
    _pair(project, "x.trec", 5, capsys)
    _, other = _pair(project, "y.trec", 4, capsys)
    side = project / "x.trec.json"
    record = json.loads(side.read_text())["run_file"]
    swapped = json.loads(other.read_text())
    swapped["run_file"]["bytes"] = record["bytes"]  # the same size: only the hash tells
    side.write_text(json.dumps(swapped))
    out = _evaluate_json(capsys, "x.trec")
    (warning,) = out["run"]["warnings"]
    assert "SHA-256 differs" in warning and "provenance unknown" in warning
    assert out["run"]["failed_queries"] == [] and out["run"]["system"] is None
    code, text = _main("validate", "x.trec", capsys=capsys)
    assert code == 0 and "does not match" in text, text


def test_an_old_marked_run_still_reads(project: Path, capsys) -> None:
    """A run from an older assay: marker line first, sidecar without a run_file record."""
    run, side = _pair(project, "x.trec", 5, capsys)
    run.write_bytes(b"# assay run: sidecar x.trec.json; keep the two files together\n"
                    + run.read_bytes())  # fmt: skip
    old = json.loads(side.read_text())
    del old["run_file"]
    side.write_text(json.dumps(old))
    out = _evaluate_json(capsys, "x.trec")
    assert out["run"]["failed_queries"] == ["q3"] and not out["run"]["warnings"]
    side.unlink()  # the old marker without its sidecar: scored, with one line saying so
    out = _evaluate_json(capsys, "x.trec")
    (warning,) = out["run"]["warnings"]
    assert "x.trec.json is missing" in warning and "provenance unknown" in warning


def test_jsonl_runs_hold_queries_only(project: Path, capsys) -> None:
    code, text = _run(project / "x.jsonl", 3, capsys)
    assert code == 0, text
    rows = [json.loads(line) for line in (project / "x.jsonl").read_text().splitlines()]
    assert all(set(row) == {"query_id", "results"} for row in rows)
    (project / "x.jsonl.json").unlink()
    code, text = _main("evaluate", "qrels.jsonl", "x.jsonl", "--max-failed", "1", capsys=capsys)
    assert code == 0, text


def test_a_third_party_run_without_sidecar_still_scores(project: Path, capsys) -> None:
    (project / "plain.trec").write_text("q1 Q0 d1 1 2.0 theirs\nq2 Q0 d9 1 1.0 theirs\n")
    code, text = _main("evaluate", "qrels.jsonl", "plain.trec", "--max-failed", "1", capsys=capsys)
    assert code == 0, text


def test_the_marker_line_is_skipped_and_lines_still_counted(project: Path) -> None:
    from assay.core.errors import InputError
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
