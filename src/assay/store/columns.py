"""What the store indexes from a result: one function per result kind, on plain JSON dicts.

Reading the JSON (not the pydantic model) lets the store keep results of any
kind, including kinds it does not know, and lets migrations back-fill columns
from stored payloads.
"""

from __future__ import annotations

import math
from typing import Any

from assay.systems.base import config_hash


def _env(payload: dict[str, Any]) -> dict[str, Any]:
    env = payload.get("environment")
    return env if isinstance(env, dict) else {}


def _config_hash(system: Any) -> str | None:
    """The one configuration hash (:func:`assay.systems.base.config_hash`) of a config."""
    if not isinstance(system, dict) or not system:
        return None

    return config_hash(system)


def _finite(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _evaluation(p: dict[str, Any]) -> dict[str, Any]:
    run = p.get("run") or {}
    js = p.get("judgments") or {}
    return {
        "system": run.get("name"),
        "config_hash": run.get("config_hash") or _config_hash(run.get("system")),
        "judgments_name": js.get("name"),
        "judgments_version": js.get("version"),
        "corpus_version": run.get("corpus_version"),
    }


def _comparison(p: dict[str, Any]) -> dict[str, Any]:
    baseline = p.get("baseline")
    others = [s.get("name") for s in p.get("systems", []) if s.get("name") != baseline]
    return {
        "system": f"{', '.join(str(o) for o in others)} vs {baseline}",
        "config_hash": None,
        "judgments_name": p.get("judgments_name"),
        "judgments_version": p.get("judgments_version"),
        "corpus_version": None,
    }


def _answers(p: dict[str, Any]) -> dict[str, Any]:
    cases = p.get("cases") or {}
    system = p.get("system")
    name = system.get("name") if isinstance(system, dict) else system
    return {
        "system": name or p.get("system_name"),
        "config_hash": _config_hash(system) if isinstance(system, dict) else None,
        "judgments_name": cases.get("name"),
        "judgments_version": cases.get("version"),
        "corpus_version": cases.get("corpus_version"),
    }


def _gate(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "system": p.get("candidate"),
        "config_hash": p.get("candidate_config_hash"),
        "judgments_name": p.get("judgments_name"),
        "judgments_version": p.get("judgments_version"),
        "corpus_version": p.get("corpus_version"),
    }


def _generic(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "system": p.get("system") if isinstance(p.get("system"), str) else p.get("name"),
        "config_hash": p.get("config_hash"),
        "judgments_name": p.get("judgments_name"),
        "judgments_version": p.get("judgments_version"),
        "corpus_version": p.get("corpus_version"),
    }


_BY_KIND = {
    "evaluation": _evaluation,
    "comparison": _comparison,
    "answers": _answers,
    "gate": _gate,
}


def index_columns(payload: dict[str, Any]) -> dict[str, Any]:
    """The indexed columns of one result payload (a JSON object)."""
    kind = str(payload.get("kind") or "evaluation")
    env = _env(payload)
    cols = _BY_KIND.get(kind, _generic)(payload)
    dirty = env.get("git_dirty")
    return {
        "kind": kind,
        "schema_version": str(payload.get("schema_version", "")),
        **{k: (None if v is None else str(v)) for k, v in cols.items()},
        "created_at": payload.get("created_at"),
        "git_commit": env.get("git_commit"),
        "dirty": dirty if isinstance(dirty, bool) else None,
        "assay_version": payload.get("assay_version") or env.get("assay_version"),
    }


def metric_values(payload: dict[str, Any]) -> dict[str, float]:
    """The aggregate numbers of one result payload, ``{metric: value}`` (finite only)."""
    kind = payload.get("kind") or "evaluation"
    out: dict[str, float] = {}
    if kind == "evaluation":
        out = {k: float(v) for k, v in (payload.get("aggregate") or {}).items() if _finite(v)}
    elif kind == "comparison":
        comps = payload.get("comparisons") or []
        several = len({c.get("candidate") for c in comps}) > 1
        for c in comps:
            key = f"delta {c.get('metric')}"
            if several:
                key = f"{key} ({c.get('candidate')})"
            if _finite(c.get("delta")):
                out[key] = float(c["delta"])
    elif kind == "answers":
        for name, score in (payload.get("scores") or {}).items():
            value = score.get("value") if isinstance(score, dict) else score
            if _finite(value):
                out[name] = float(value)
    elif kind == "gate":
        for check in payload.get("checks") or []:
            if check.get("slice_field") is None and _finite(check.get("candidate_mean")):
                out[str(check.get("metric"))] = float(check["candidate_mean"])
                if _finite(check.get("delta")):
                    out[f"delta {check.get('metric')}"] = float(check["delta"])
        out["passed"] = 1.0 if payload.get("passed") else 0.0
    elif kind == "verify":
        metric = str(payload.get("metric"))
        for key, name in ((metric, "system_mean"), (f"delta {metric}", "delta")):
            if _finite(payload.get(name)):
                out[key] = float(payload[name])
        out["passed"] = 1.0 if payload.get("passed") else 0.0
    else:
        agg = payload.get("aggregate")
        if isinstance(agg, dict):
            out = {k: float(v) for k, v in agg.items() if _finite(v)}
    return out
