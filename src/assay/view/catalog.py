"""The results ``assay view`` shows: the history store's and the files given, by one id each.

A stored result has the id ``s<run id>``, a result file ``f<n>`` (in the order
given). :meth:`Catalog.summaries` lists every result for the home page, newest
first, from the store's index columns (no payload is read) and the files'
models; :meth:`Catalog.get` reads one result (its registered model).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from assay.core.errors import UsageError
from assay.report.digits import fmt
from assay.results.models import read_result_file
from assay.store.api import open_store
from assay.store.history import build_history


class Summary(BaseModel):
    """One line of the home page and of ``/api/results``."""

    id: str = Field(description="s<run id> for a stored result, f<n> for a result file")
    kind: str = Field(description="the result's kind (evaluation, comparison, matrix, ...)")
    system: str | None = Field(None, description="system, candidate or matrix name")
    judgments_name: str | None = Field(None, description="judgment set (or cases) name")
    judgments_version: str | None = Field(None, description="judgment-set (or cases) version")
    created_at: str | None = Field(None, description="when the result was made (UTC, ISO 8601)")
    headline: str | None = Field(None, description="the headline measure and its value")
    gate: str | None = Field(None, description="passed / failed when a gate decided on it")
    source: str = Field(description="where it comes from: the store or a file's path")


def _first(values: dict[str, Any]) -> str | None:

    for name, value in values.items():
        if isinstance(value, int | float):
            return f"{name} {fmt(float(value), 4, name)}"
    return None


def summarize(result: Any, rid: str, source: str) -> Summary:
    """The home-page line of a result model (any registered kind)."""
    kind = str(getattr(result, "kind", "result"))
    s = Summary(id=rid, kind=kind, created_at=getattr(result, "created_at", None), source=source)
    if kind == "evaluation":
        s.system, s.headline = result.run.name, _first(result.aggregate)
        s.judgments_name, s.judgments_version = result.judgments.name, result.judgments.version
    elif kind == "comparison":
        s.system = ", ".join(result.candidates) + f" vs {result.baseline}"
        s.judgments_name, s.judgments_version = result.judgments_name, result.judgments_version
        if result.comparisons:
            c = result.comparisons[0]
            s.headline = f"Δ {c.metric} {c.delta:+.4f} ({c.verdict})"
    elif kind == "matrix":
        s.system, s.judgments_name, s.judgments_version = result.name, "cases", result.cases_version
        base = next((v for v in result.variants if v.variant == result.baseline), None)
        if base is not None and base.pass_rate is not None:
            s.headline = f"pass rate {base.pass_rate:.3f} ({base.variant})"
    elif kind == "gate":
        s.system, s.gate = result.candidate, "passed" if result.passed else "failed"
        s.judgments_name, s.judgments_version = result.judgments_name, result.judgments_version
        s.headline = f"gate {s.gate} on {', '.join(result.metrics)}"
    elif kind == "tuning":
        s.system, s.judgments_name = result.system, result.judgments_name
        s.judgments_version = result.judgments_version
        honest = result.recommended.honest_score.get(result.objective)
        s.headline = f"tuned {result.objective} {honest:.4f} held out"
    else:
        s.system = getattr(result, "system", None) or getattr(result, "name", None)
    return s


def _entry_summary(entry: Any) -> Summary:
    """The home-page line of a stored result, from its index columns."""
    metrics = dict(entry.metrics)
    gate = None
    if entry.kind == "gate" and "passed" in metrics:
        gate = "passed" if metrics.pop("passed") else "failed"
    elif entry.role in ("gate-passed", "gate-failed"):
        gate = entry.role.removeprefix("gate-")
    return Summary(
        id=f"s{entry.run_id}",
        kind=entry.kind,
        system=entry.system,
        judgments_name=entry.judgments_name,
        judgments_version=entry.judgments_version,
        created_at=entry.created_at,
        headline=_first(metrics),
        gate=gate,
        source="store",
    )


class Catalog:
    """The history store (optional) and result files, read once, looked up by id."""

    def __init__(self, files: Sequence[str | Path] = (), store: str | None = None) -> None:

        self.files: dict[str, tuple[Path, Any]] = {}
        for i, path in enumerate(files, start=1):
            p = Path(path)
            self.files[f"f{i}"] = (p, read_result_file(p))
        self.store: Any = None
        self.store_name = ""
        if store is not None or not self.files:
            self.store = open_store(store, read_only=True)
            self.store_name = repr(self.store)
        self._cache: dict[str, Any] = {}

    def close(self) -> None:
        """Release the store's connections."""
        if self.store is not None:
            self.store.close()

    def summaries(self) -> list[Summary]:
        """Every result, newest first."""
        rows = [summarize(m, rid, str(p)) for rid, (p, m) in self.files.items()]
        if self.store is not None:
            rows += [_entry_summary(e) for e in self.store.list()]
        return sorted(rows, key=lambda s: (s.created_at or "", s.id), reverse=True)

    def get(self, rid: str) -> Any:
        """The result ``rid`` (its model); :class:`UsageError` when there is none."""
        if rid in self.files:
            return self.files[rid][1]
        if rid in self._cache:
            return self._cache[rid]
        digits = rid[1:]
        if self.store is None or not rid.startswith("s") or not digits.isdigit():
            raise UsageError(f"no result {rid[:40]!r}")
        result = self.store.get(int(digits))
        if len(self._cache) > 32:
            self._cache.clear()
        self._cache[rid] = result
        return result

    def folders(self, rid: str) -> list[Path]:
        """Folders a result's relative provenance paths are resolved against."""
        where = [Path.cwd()]
        if rid in self.files:
            where.insert(0, self.files[rid][0].resolve().parent)
        return where

    def judgments_for(self, version: str) -> tuple[str | None, str | None]:
        """``(path, format)`` of the judgment set of ``version``, from an evaluation that
        names it (result files first, then the store's newest); ``(None, None)`` if none."""
        for _, result in self.files.values():
            j = getattr(result, "judgments", None)
            if getattr(result, "kind", "") == "evaluation" and j.version == version and j.path:
                return j.path, j.format
        if self.store is not None:
            found = self.store.last_id(judgments=version, kind="evaluation", include_failed=True)
            if found is not None:
                j = self.get(f"s{found}").judgments
                return j.path, j.format
        return None, None

    def history(self) -> tuple[Any, dict[int, dict[str, tuple[float, float]]]]:
        """The store's results over time (:class:`assay.store.history.HistoryReport`) and
        the intervals the comparisons and gates among them carry (run id -> measure ->
        ``(low, high)``; at most :data:`MAX_INTERVALS` results are read for them)."""

        entries = self.store.list() if self.store is not None else []
        report = build_history(entries, store=self.store_name or "no store")
        wanted = [e.run_id for e in entries if e.kind in ("comparison", "gate")]
        spans = {rid: intervals(self.get(f"s{rid}")) for rid in wanted[-MAX_INTERVALS:]}
        return report, spans


#: Comparisons and gates whose intervals the history page reads (the newest).
MAX_INTERVALS = 200


def intervals(result: Any) -> dict[str, tuple[float, float]]:
    """``{measure as the store names it: (low, high)}`` of a comparison's or gate's deltas."""
    out: dict[str, tuple[float, float]] = {}
    if result.kind == "comparison":
        several = len(set(result.candidates)) > 1
        for c in result.comparisons:
            key = f"delta {c.metric}" + (f" ({c.candidate})" if several else "")
            out[key] = (c.ci_low, c.ci_high)
    elif result.kind == "gate":
        for check in result.checks:
            if check.slice_field is None:
                out[f"delta {check.metric}"] = (check.ci_low, check.ci_high)
    return out
