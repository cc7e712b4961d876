"""The sidecar of a run file: ``run.trec.json`` next to ``run.trec``.

``assay run`` writes it with the system configuration (secrets redacted), the
corpus and judgment-set versions, timings, failed queries and the queries whose
result list was empty (a TREC file cannot show an empty list). Every door that
reads a run file reads its sidecar too (:mod:`assay.procedures.sources`), so a
run made on another judgment-set version is refused and failed queries are
reported instead of scored as zeros.

The run itself stays a plain run any tool reads; the sidecar says which run it
belongs to (``run_file``: name, size, SHA-256). A sidecar that does not match
its run is not used (:func:`provenance_note`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assay.core.errors import InputError, Problem
from assay.core.hashing import file_sha256, sha256_hex
from assay.core.redact import redact, scrub_secrets
from assay.io.fileio import write_bytes_atomic, write_files_atomic
from assay.io.textio import parse_json
from assay.runs.io import JSONL_MARKER, run_bytes


def sidecar_path(run_path: str | Path) -> Path:
    """Where the sidecar of ``run_path`` lives."""
    p = Path(run_path)
    return p.with_name(p.name + ".json")


def write_sidecar(run_path: str | Path, data: dict[str, Any]) -> Path:
    """Write the sidecar of ``run_path`` atomically; return its path."""

    side = sidecar_path(run_path)
    write_bytes_atomic(side, sidecar_bytes(data))
    return side


def sidecar_bytes(data: dict[str, Any]) -> bytes:
    """The sidecar as written: strict JSON (no bare NaN), secrets redacted and scrubbed."""

    clean = _finite(redact(data))
    text = json.dumps(clean, indent=2, ensure_ascii=False, default=str, allow_nan=False) + "\n"
    return scrub_secrets(text).encode("utf-8", "replace")


def write_run_pair(
    run: Any,
    run_path: str | Path,
    data: dict[str, Any],
    *,
    format: str | None = None,
    tag: str | None = None,
) -> tuple[Path, Path]:
    """Write a run and its sidecar so that both land or neither does.

    The run is a plain run (six columns a line, or one query a line); the
    sidecar records which run it belongs to under ``run_file`` (the run's file
    name, size in bytes and SHA-256), and ``data`` gets the same record so the
    caller sees what was written. Both are written to temporary files first
    (synced), then renamed, the sidecar first
    (:func:`assay.io.fileio.write_files_atomic`); when the run's rename fails the
    sidecar is put back as it was. An I/O error (a full disk) is an
    :class:`OSError` naming the file. Returns ``(run file, sidecar)``.
    """

    side = sidecar_path(run_path)
    payload = run_bytes(run, run_path, format, tag)
    data["run_file"] = run_record(Path(run_path).name, payload)
    written = write_files_atomic([(side, sidecar_bytes(data)), (run_path, payload)])
    return written[1], written[0]


def run_record(name: str, payload: bytes) -> dict[str, Any]:
    """The sidecar's ``run_file`` record of a run written as ``payload`` under ``name``."""

    return {"name": name, "bytes": len(payload), "sha256": sha256_hex(payload)}


def provenance_note(run: Any, run_path: str | Path, data: dict[str, Any] | None) -> str | None:
    """Why the sidecar ``data`` of ``run_path`` is not used (None: use it).

    A sidecar whose ``run_file`` record (size, SHA-256) does not match the run
    beside it is not this run's (the run was truncated, edited or replaced, or
    the sidecar swapped); a run with the old marker line of ``assay run`` and
    no sidecar lost its own. Either way the run is scored as a plain run and
    this one line says that its provenance is unknown. A sidecar without a
    ``run_file`` record (written before it existed) is used as before.
    """

    side = sidecar_path(run_path).name
    if not data:
        if not run.metadata.get(JSONL_MARKER):
            return None
        why = f"written by `assay run` (marker line), but its sidecar {side} is missing"
        return f"{run_path}: {why}; provenance unknown: scored as a plain run"
    mismatch = sidecar_mismatch(data, run_path)
    if mismatch is None:
        return None
    return (
        f"{run_path}: {side} does not match this run ({mismatch}); the sidecar is not used; "
        "provenance unknown: scored as a plain run"
    )


def sidecar_mismatch(data: dict[str, Any], run_path: str | Path) -> str | None:
    """What differs between the run at ``run_path`` and the ``run_file`` record of its
    sidecar ``data`` (None: it matches, or the sidecar predates the record)."""

    record, path = data.get("run_file"), Path(run_path)
    if record is None:
        return None  # a sidecar from before the record existed
    if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
        return "its run_file record has no sha256"
    size = path.stat().st_size
    if isinstance(record.get("bytes"), int) and record["bytes"] != size:
        return f"the run is {size} bytes, the sidecar records {record['bytes']}"
    if file_sha256(path) != record["sha256"]:
        return "its SHA-256 differs from the one the sidecar records"
    return None


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by ``None`` (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def read_sidecar(run_path: str | Path) -> dict[str, Any] | None:
    """The sidecar of ``run_path`` as a dict, or None when there is none.

    Raises :class:`InputError` naming the sidecar when it exists but is not a
    JSON object.
    """
    side = sidecar_path(run_path)
    if not side.is_file():
        return None
    try:
        data = parse_json(side.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(
            [
                Problem(
                    str(side),
                    line,
                    f"run sidecar is not valid JSON: {exc}",
                    hint="regenerate it with `assay run` or delete it",
                )
            ]
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            [Problem(str(side), 1, "run sidecar must be a JSON object", hint="delete it")]
        )
    return data
