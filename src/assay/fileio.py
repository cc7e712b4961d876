"""Writing files: the one atomic-write rule, and the rule for what may be read or replaced.

Every file assay writes (reports, result files, runs, sidecars, caches) goes
through :func:`write_bytes_atomic`: the bytes go to a temporary file in the
target's folder, are flushed and ``fsync``-ed, get the mode of the file they
replace (a new file: ``0o666`` less the umask, like any other program's), and
are renamed over the target in one step; the folder is synced after. Nothing
is ever half-written.

Targets must be regular files. A directory, a device (``/dev/full``,
``/dev/null``), a FIFO or a socket is refused with a :class:`~assay.errors.UsageError`
(exit 2) and left untouched. **Symlinks are followed**: writing to a link
replaces the file it points to (the link stays a link); a dangling link
creates its target. Inputs that are FIFOs or devices are refused too
(:func:`check_input`), so a command never blocks reading a pipe that nobody
writes. Text written is scrubbed of registered secrets (:mod:`assay.redact`).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from assay.errors import UsageError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def output_target(path: str | Path) -> Path:
    """The file a write to ``path`` replaces (symlinks followed); refuse special files."""
    target = Path(path)
    real = Path(os.path.realpath(target)) if target.is_symlink() else target
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise UsageError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    kind = _kind(mode)
    if kind is not None:
        raise UsageError(f"{path}: is {kind}; assay writes only regular files (choose a file path)")
    return real


def check_input(path: str | Path) -> None:
    """Refuse an input that is a FIFO, a device or a socket (reading it could block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # a missing file is reported by the reader, with its own message
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return
    raise UsageError(f"{path}: is {_kind(mode)}, not a regular file; pass a file")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _mode_for(target: Path) -> int:
    """Permissions for the written file: an existing target's, else 0o666 less the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring); return the file."""
    target = output_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_dir(target.parent)
    return target


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` atomically, scrubbed of registered secrets; return the file."""
    from assay.redact import scrub_secrets

    return write_bytes_atomic(path, scrub_secrets(text).encode("utf-8", "replace"))


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
