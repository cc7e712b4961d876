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
    from assay.fileio import write_text_atomic
    from assay.redact import redact

    side = sidecar_path(run_path)
    clean = _finite(redact(data))  # strict JSON: no bare NaN; no secrets (assay.redact)
    text = json.dumps(clean, indent=2, ensure_ascii=False, default=str, allow_nan=False) + "\n"
    write_text_atomic(side, text)
    return side


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
