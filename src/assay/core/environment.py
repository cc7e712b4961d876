"""Provenance recorded with every result: assay and Python versions, time, git state.

:func:`environment` never fails: when ``git`` is missing, slow, or the working
directory is not inside a git work tree, the git fields are ``None``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay import __version__

#: Seconds each ``git`` call may take before it is abandoned.
GIT_TIMEOUT = 3.0


def _git(args: list[str], cwd: Path) -> str | None:
    """Run ``git args`` in ``cwd``; its stripped stdout, or ``None`` on any failure."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip()


def git_state(cwd: str | Path | None = None) -> dict[str, Any]:
    """``{"git_commit": sha | None, "git_dirty": bool | None}`` of the work tree at ``cwd``.

    ``git_dirty`` is true when tracked files differ from the commit (untracked
    files are ignored). Both are ``None`` outside a git work tree.
    """
    where = Path(cwd) if cwd is not None else Path.cwd()
    commit = _git(["rev-parse", "--verify", "HEAD"], where)
    if not commit:
        return {"git_commit": None, "git_dirty": None}
    status = _git(["status", "--porcelain", "--untracked-files=no"], where)
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def environment(cwd: str | Path | None = None) -> dict[str, Any]:
    """Provenance of a result: assay version, UTC time, Python, platform and git state."""

    return {
        "assay_version": __version__,
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(terse=True),
        **git_state(cwd),
    }
