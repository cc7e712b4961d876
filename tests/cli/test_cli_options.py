"""CLI contract over the options every command shares, and output that fits where it goes.

Help in plain words with ``-h``; ``-o`` suffixes a command cannot write refused
everywhere; one result written in several formats recorded once; tables at 80
columns on a terminal (a pty) and at full width on a pipe, nothing cut.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
QUESTIONS = EXAMPLE / "questions.csv"
CONFIG = EXAMPLE / "assay.toml"
CASES = ROOT / "examples" / "answers" / "cases.jsonl"
METRICS = [
    *("P@1", "P@5", "P@10", "P@20", "R@5", "R@10", "R@20", "R@100"),
    *("nDCG@5", "nDCG@10", "nDCG@20", "nDCG@100", "RR", "AP", "Rprec"),
    *("Success@1", "Success@5", "Success@10", "RR@10", "AP@100"),
]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
CMD = [sys.executable, "-c", "from assay.cli import main; main()"]


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI on a pipe."""
    return subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=cwd, timeout=180)


def on_terminal(*args: str, cwd: Path, columns: int = 80) -> tuple[int, str]:
    """The CLI with stdout on a pseudo-terminal ``columns`` wide: (exit code, text seen)."""
    import pty
    import select

    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "40", "TERM": "xterm"}
    with open(cwd / "stderr.txt", "w") as err:
        proc = subprocess.Popen(
            [*CMD, *args], stdout=slave, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env
        )
    os.close(slave)
    chunks: list[bytes] = []
    for _ in range(1200):  # bounded: 1200 x 0.1 s
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    rc = proc.wait(timeout=60)
    os.close(master)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", errors="replace"))
    return rc, text.replace("\r\n", "\n")


def _commands() -> list[tuple[str, Any]]:
    from assay.cli.app import _command, _load_commands

    _load_commands()
    out: list[tuple[str, Any]] = []

    def walk(command: Any, path: str) -> None:
        out.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(_command(), "")
    return out


COMMANDS = [path for path, _ in _commands()]


@pytest.mark.parametrize("path", COMMANDS)
def test_help_with_h_is_in_plain_words(path: str, tmp_path: Path) -> None:
    proc = assay(*path.split(), "-h", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: assay")
    for bad in ("{", "}", "<list", "<str>", "<path>", "<int>", "<float>", "list["):
        assert bad not in proc.stdout, (path, bad)


def test_every_help_text_is_a_capitalised_sentence() -> None:
    for path, command in _commands():
        assert (command.help or "X")[0].isupper(), path
        for param in command.params:
            text = getattr(param, "help", None) or ""
            assert not text or not text[0].isalpha() or text[0].isupper(), (path, param.opts)


def test_shared_options_have_one_spelling() -> None:
    """--system is -s, --metric is -m (repeatable), --format is -f, --output is -o."""
    short = {"--system": "-s", "--metric": "-m", "--format": "-f", "--output": "-o"}
    for path, command in _commands():
        for param in command.params:
            for long, flag in short.items():
                if long in getattr(param, "opts", []):
                    assert flag in param.opts, (path, long)
                    if long == "--metric" and path != "verify-suite":
                        assert param.multiple, (path, long)


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", str(QUESTIONS), "--system", "keyword", "--config", str(CONFIG)],
        ["compare", str(QUESTIONS), "a.trec", "b.trec"],
        ["history"],
        ["answers", str(CASES)],
    ],
)
@pytest.mark.parametrize("target", ["out.xml", "out"])
def test_unwritable_output_suffix_is_refused(args: list[str], target: str, tmp_path: Path) -> None:
    proc = assay(*args, "-o", str(tmp_path / target), "--no-record", cwd=tmp_path)
    if args[0] == "history":  # history does not record
        proc = assay(*args, "-o", str(tmp_path / target), cwd=tmp_path)
    assert proc.returncode == 2, (args, target, proc.stdout, proc.stderr)
    assert "-o" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / target).exists()


def _runs(work: Path) -> tuple[Path, Path]:
    for system, out in (("keyword", "a.trec"), ("keyword-names-only", "b.trec")):
        proc = assay(
            "run", str(QUESTIONS), "-s", system, "--config", str(CONFIG), "-o", str(work / out),
            "--no-cache", "-q", cwd=work,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    return work / "a.trec", work / "b.trec"


def test_one_result_in_several_formats_is_recorded_once(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'h.db'}"
    a, b = _runs(tmp_path)
    outs = [tmp_path / f"c.{s}" for s in ("json", "md", "html", "csv", "txt")]
    args = [x for o in outs for x in ("-o", str(o))]
    proc = assay("compare", str(QUESTIONS), str(a), str(b), "--store", store, *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert all(o.is_file() for o in outs)
    assert json.loads(outs[0].read_text())["kind"] == "comparison"
    assert "Largest changes" in outs[1].read_text() and "Power" in outs[1].read_text()
    assert "\x1b" not in outs[4].read_text() and "Comparison vs" in outs[4].read_text()
    listed = assay("history", "--store", store, "--kind", "all", "-f", "json", cwd=tmp_path)
    assert [r["kind"] for r in json.loads(listed.stdout)["rows"]] == ["comparison"]
    refused = assay("compare", str(QUESTIONS), str(a), str(b), *args, "-f", "json", cwd=tmp_path)
    assert refused.returncode == 2 and "drop --format" in refused.stderr


def test_run_name_and_format_flag(tmp_path: Path) -> None:
    proc = assay(
        "run", str(QUESTIONS), "-s", "keyword", "--config", str(CONFIG), "-o",
        str(tmp_path / "r.txt"), "-f", "trec", "--name", "kw-prod", "--no-cache", "-q",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r.txt").read_text().splitlines()[1].split()[5] == "kw-prod"
    shown = assay("evaluate", str(QUESTIONS), str(tmp_path / "r.txt"), "--no-record", cwd=tmp_path)
    assert "run        kw-prod" in shown.stdout


def test_gate_takes_missing_and_ties(tmp_path: Path) -> None:
    a, b = _runs(tmp_path)
    base = tmp_path / "base.json"
    policy = ["--missing", "skip", "--ties", "given"]
    made = assay(
        "evaluate", str(QUESTIONS), str(a), *policy, "-o", str(base), "--no-record", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    proc = assay(
        "gate", str(QUESTIONS), str(b), "--baseline", str(base), *policy, "--no-record",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    # a baseline scored with another policy is refused, naming the flag
    other = assay(
        "gate", str(QUESTIONS), str(b), "--baseline", str(base), "--no-record", cwd=tmp_path
    )
    assert other.returncode == 2 and "--missing" in other.stderr
    bad = assay(
        "gate", str(QUESTIONS), str(b), "--baseline", str(base), "--ties", "x", cwd=tmp_path
    )
    assert bad.returncode == 2 and "--ties" in bad.stderr


def _evaluate_wide(*extra: str) -> list[str]:
    args = ["evaluate", str(QUESTIONS), "-s", "keyword", "--config", str(CONFIG), "--no-record"]
    for m in METRICS:
        args += ["-m", m]
    return [*args, *extra]


def _assert_whole(text: str, tokens: list[str]) -> None:
    for token in tokens:
        pattern = re.compile(rf"(?<!\S){re.escape(token)}(?!\S)")
        assert any(pattern.search(line) for line in text.splitlines()), f"{token!r} cut"


def test_twenty_metrics_piped_are_one_full_width_table(tmp_path: Path) -> None:
    proc = assay(*_evaluate_wide(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "…" not in proc.stdout and "\x1b" not in proc.stdout
    header = next(line for line in proc.stdout.splitlines() if line.startswith("all") is False
                  and "P@1" in line.split())  # fmt: skip
    assert header.split()[2:] == METRICS  # group, n, then every metric whole, in order
    assert "1 run query not scored" in proc.stdout  # counts in words


def test_twenty_metrics_on_an_80_column_terminal(tmp_path: Path) -> None:
    rc, text = on_terminal(*_evaluate_wide("--no-per-query"), cwd=tmp_path)
    assert rc == 0, (tmp_path / "stderr.txt").read_text()
    assert "…" not in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    _assert_whole(text, METRICS)
    rc, plain = on_terminal(*_evaluate_wide("--no-per-query", "-f", "plain"), cwd=tmp_path)
    assert rc == 0
    assert any(line.split()[2:] == METRICS for line in plain.splitlines() if line.strip())
