"""The sidecar of a run file: ``run.trec.json`` next to ``run.trec``.

``assay run`` writes it with the system configuration (secrets redacted), the
corpus and judgment-set versions, timings, failed queries and the queries whose
result list was empty (a TREC file cannot show an empty list). Commands that
read a run file read its sidecar too, so a run made on another judgment-set
version is refused and failed queries are reported instead of scored as zeros.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assay.errors import InputError, Problem, UsageError
from assay.safejson import loads as safe_loads


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
        data = safe_loads(side.read_text(encoding="utf-8-sig"))
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


def run_info_from_sidecar(
    run_path: str | Path,
    judgments_version: str,
    *,
    allow_version_mismatch: bool = False,
) -> dict[str, Any]:
    """Provenance of a run file for :func:`assay.evaluation.score_run`.

    Returns ``info`` keys (system, config_hash, corpus_version, failed and
    empty query ids, latency). Raises :class:`UsageError` when the run was made
    on another judgment-set version, unless ``allow_version_mismatch``; then
    the mismatch is recorded in ``info["warnings"]``.
    """
    data = read_sidecar(run_path)
    if data is None:
        return {}
    info: dict[str, Any] = {}
    made_on = data.get("judgments_version")
    if made_on and made_on != judgments_version:
        message = (
            f"{run_path} was made on judgment-set version {made_on}, "
            f"not {judgments_version} (see {sidecar_path(run_path).name})"
        )
        if not allow_version_mismatch:
            raise UsageError(
                message + "; re-run the system on these judgments, or pass "
                "--allow-version-mismatch to score it anyway"
            )
        info["warnings"] = [message + " (scored anyway: --allow-version-mismatch)"]
    if isinstance(data.get("system_config"), dict):
        info["system"] = data["system_config"]
    for key in ("config_hash", "corpus_version", "k"):
        if data.get(key) is not None:
            info[key] = data[key]
    if isinstance(data.get("latency_ms"), dict):
        info["latency_ms"] = data["latency_ms"]
    failures = data.get("failures") or []
    side = sidecar_path(run_path)
    if not isinstance(failures, list) or any(
        not isinstance(f, dict) or not isinstance(f.get("query_id"), str | int) for f in failures
    ):
        raise InputError(
            [
                Problem(
                    str(side),
                    None,
                    "failures must be a list of objects with a string query_id",
                    field="failures",
                    hint="regenerate it with `assay run` or delete it",
                )
            ]
        )
    info["failed_query_ids"] = [
        str(f["query_id"]) for f in failures if isinstance(f, dict) and "query_id" in f
    ]
    info["failures"] = [f for f in failures if isinstance(f, dict)]
    empty = data.get("empty_query_ids")
    info["empty_query_ids"] = [str(q) for q in empty] if isinstance(empty, list) else []
    return info
