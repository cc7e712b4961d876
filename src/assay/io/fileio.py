"""Writing files: the one atomic-write rule, and the rule for what may be read or replaced.

Every file assay writes (reports, result files, runs, sidecars, caches) goes
through :func:`write_bytes_atomic`: the bytes go to a temporary file in the
target's folder, are flushed and ``fsync``-ed, get the mode of the file they
replace (a new file: ``0o666`` less the umask, like any other program's), and
are renamed over the target in one step; the folder is synced after. Nothing
is ever half-written.

Targets must be regular files. A directory, a device (``/dev/full``,
``/dev/null``), a FIFO or a socket is refused with a :class:`~assay.core.errors.UsageError`
(exit 2) and left untouched. **Symlinks are followed**: writing to a link
replaces the file it points to (the link stays a link); a dangling link
creates its target. Inputs that are FIFOs or devices are refused too
(:func:`check_input`), so a command never blocks reading a pipe that nobody
writes. Text written is scrubbed of registered secrets (:mod:`assay.core.redact`).

A file that another program owns and assay only adds to (GitHub's job summary,
``$GITHUB_STEP_SUMMARY``) is appended to with :func:`append_text`: one write of
the whole text, flushed and synced, to a regular file only. :func:`locate` finds a file
named in a result or sidecar, relative to the folders it may sit in.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from assay.core.errors import UsageError
from assay.core.redact import scrub_secrets

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
    """Write ``data`` to ``path`` atomically (see the module docstring); return the file.

    An I/O error (a full disk, a read-only folder) is an :class:`OSError` whose
    ``filename`` is the target, so every message names the file; the target is
    left as it was.
    """
    return write_files_atomic([(path, data)])[0]


def write_files_atomic(items: list[tuple[str | Path, bytes]]) -> list[Path]:
    """Write several files so that they land together or not at all; return the files.

    Every file goes to a temporary file beside its target first (written,
    flushed, ``fsync``-ed); only when all are on disk are they renamed over
    their targets, in order. If a rename fails, the files renamed before it
    are put back as they were (an old file is kept through a hard link until
    the end), so readers see the old set or the new set. Errors are
    :class:`OSError` naming the file at fault.
    """
    targets = [output_target(path) for path, _ in items]
    temps: list[str] = []
    try:
        for target, (_, data) in zip(targets, items, strict=True):
            temps.append(_write_temp(target, data))
        _rename_all(targets, temps)
    finally:
        for tmp in temps:
            Path(tmp).unlink(missing_ok=True)
    for folder in dict.fromkeys(t.parent for t in targets):
        _sync_dir(folder)
    return targets


def _write_temp(target: Path, data: bytes) -> str:
    """``data`` in a synced temporary file beside ``target``; OSError names ``target``."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _named(exc, target) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(target))
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _named(exc, target) from None
        raise
    return tmp


def _rename_all(targets: list[Path], temps: list[str]) -> None:
    """Rename each temp over its target; on a failure put the earlier targets back."""
    done: list[tuple[Path, str | None]] = []
    try:
        for target, tmp in zip(targets, temps, strict=True):
            backup = _keep(target) if len(targets) > 1 else None
            try:
                os.replace(tmp, target)
            except OSError as exc:
                if backup is not None:
                    Path(backup).unlink(missing_ok=True)
                raise _named(exc, target) from None
            done.append((target, backup))
    except BaseException:
        for target, backup in reversed(done):
            if backup is not None:
                os.replace(backup, target)
            else:
                target.unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            Path(backup).unlink(missing_ok=True)


def _keep(target: Path) -> str | None:
    """A hard link to the current ``target`` (None when there is none): the way back."""
    if not target.exists():
        return None
    backup = target.with_name(f".{target.name}.{os.getpid()}.old")
    backup.unlink(missing_ok=True)
    try:
        os.link(target, backup)
    except OSError as exc:
        raise _named(exc, target) from None
    return str(backup)


def _named(exc: OSError, target: Path) -> OSError:
    """``exc`` with ``target`` as its file name (a full disk's ENOSPC names no file)."""
    return OSError(exc.errno, exc.strerror or str(exc), str(target))


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` atomically, scrubbed of registered secrets; return the file."""

    return write_bytes_atomic(path, scrub_secrets(text).encode("utf-8", "replace"))


def append_text(path: str | Path, text: str) -> Path:
    """Append UTF-8 ``text`` (scrubbed of registered secrets) to ``path`` in one write; return it.

    The file is created when missing; special files are refused as for a write
    (:func:`output_target`). An I/O error is an :class:`OSError` naming the file.
    """

    target = output_target(path)
    data = scrub_secrets(text).encode("utf-8", "replace")
    try:
        with open(target, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise _named(exc, target) from None
    return target


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


def locate(path: str | None, folders: Sequence[Path]) -> Path | None:
    """``path`` if it exists, else found relative to one of ``folders``; else None."""
    if not path:
        return None
    p = Path(path)
    if p.is_absolute():
        return p if p.exists() else None
    for folder in folders:
        if (folder / p).exists():
            return folder / p
    return None
