"""Writing reports and result files: atomically, so nothing is ever half-written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _mode_for(target: Path) -> int:
    """Permissions for a new file: an existing target's, else 0o666 less the umask."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and an atomic rename.

    The file gets ordinary permissions (those of the file it replaces, or
    0o666 less the umask), not the private mode of a temporary file.
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(21, "is a directory, not a file", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
