"""The sidecar of a run file: ``run.trec.json`` next to ``run.trec``.

``assay run`` writes it with the system configuration (secrets redacted), the
corpus and judgment-set versions, timings, failed queries and the queries whose
result list was empty (a TREC file cannot show an empty list). Every door that
reads a run file reads its sidecar too (:mod:`assay.procedures.sources`), so a
run made on another judgment-set version is refused and failed queries are
reported instead of scored as zeros.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assay.errors import InputError, Problem
from assay.textio import parse_json


def sidecar_path(run_path: str | Path) -> Path:
    """Where the sidecar of ``run_path`` lives."""
    p = Path(run_path)
    return p.with_name(p.name + ".json")


def write_sidecar(run_path: str | Path, data: dict[str, Any]) -> Path:
    """Write the sidecar of ``run_path`` atomically; return its path."""
    from assay.fileio import write_bytes_atomic

    side = sidecar_path(run_path)
    write_bytes_atomic(side, sidecar_bytes(data))
    return side


def sidecar_bytes(data: dict[str, Any]) -> bytes:
    """The sidecar as written: strict JSON (no bare NaN), secrets redacted and scrubbed."""
    from assay.redact import redact, scrub_secrets

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

    Both are written to temporary files first, then renamed, the sidecar first
    (:func:`assay.fileio.write_files_atomic`); when the run's rename fails the
    sidecar is put back as it was. The run starts with the marker of a run
    written by ``assay run`` (:data:`assay.runs.io.TREC_MARKER`), so a reader
    finding it without its sidecar refuses it instead of scoring its failed
    queries as empty lists. An I/O error (a full disk) is an :class:`OSError`
    naming the file. Returns ``(run file, sidecar)``.
    """
    from assay.fileio import write_files_atomic
    from assay.runs.io import run_bytes

    side = sidecar_path(run_path)
    payload = run_bytes(run, run_path, format, tag, sidecar=side.name)
    written = write_files_atomic([(side, sidecar_bytes(data)), (run_path, payload)])
    return written[1], written[0]


def missing_sidecar(run: Any, run_path: str | Path) -> InputError | None:
    """The error for a run written by ``assay run`` whose sidecar is not beside it."""
    from assay.runs.io import JSONL_MARKER

    if not run.metadata.get(JSONL_MARKER) or sidecar_path(run_path).is_file():
        return None
    side = sidecar_path(run_path).name
    return InputError(
        [
            Problem(
                str(run_path),
                1,
                f"written by `assay run`, but its sidecar {side} is missing: its failed "
                "queries would be scored as empty result lists",
                hint=f"put {side} back beside it, or run the system again",
            )
        ]
    )


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
