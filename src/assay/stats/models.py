"""The versioned comparison result that every comparison renderer reads.

Deltas are always **candidate minus baseline**. ``p_adjusted`` is adjusted
across all candidate x metric comparisons of the report by the correction
``settings.adjustment`` names (Holm by default; slices form their own family);
``verdict`` is decided on ``p_adjusted`` at ``alpha``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from assay.core.policies import ScoringPolicy
from assay.results.models import MIGRATIONS, ResultModel
from assay.stats.corrections import correction_field
from assay.stats.paired import PairedColumns, rows_to_columns
from assay.stats.verdict import Verdict

#: "2": ``per_query`` is an object of columns (arrays at the leaves); "1" held rows.
COMPARISON_SCHEMA_VERSION = "2"


class SystemInfo(BaseModel):
    """One compared system (a run or a result file)."""

    name: str
    run_name: str
    path: str | None = None
    judgments_version: str
    queries: int = Field(description="per-query rows in the system's result")
    unpaired: int = Field(0, description="rows dropped because another system lacks the query")
    failed_queries: list[str] = Field(
        default_factory=list, description="queries whose system call failed (never scored)"
    )


class QueryDelta(BaseModel):
    """One query's change between baseline and a candidate on one metric."""

    query_id: str
    text: str = ""
    baseline: float
    candidate: float
    delta: float
    baseline_rank: int | None = Field(None, description="first_rel_rank in the baseline")
    candidate_rank: int | None = Field(None, description="first_rel_rank in the candidate")


class Stat(BaseModel):
    """Delta, interval, test and verdict of one paired comparison.

    ``baseline_mean``, ``candidate_mean``, ``delta`` and the interval are means
    over the paired queries, except for counts (``NumRet``...), which are totals
    as on trec_eval's summary line (:mod:`assay.stats.summary`).
    """

    candidate: str
    metric: str
    n: int
    baseline_mean: float
    candidate_mean: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    effect_size: float | None
    verdict: Verdict
    wins: int = Field(description="queries where the candidate scores higher")
    losses: int = Field(description="queries where the candidate scores lower")
    ties: int
    baseline: str | None = Field(
        None,
        description="the system this row compares with, when a comparison has several "
        "baselines or all pairs (absent from the file otherwise: the result's baseline)",
    )

    @model_serializer(mode="wrap")
    def _without_single_baseline(self, handler: Any) -> Any:
        """A one-baseline comparison's rows are written as before (no ``baseline`` key)."""
        data = handler(self)
        if isinstance(data, dict) and data.get("baseline", 0) is None:
            del data["baseline"]
        return data


class MetricComparison(Stat):
    """A candidate vs the baseline on one metric over all paired queries."""

    top_losses: list[QueryDelta] = Field(default_factory=list)
    top_gains: list[QueryDelta] = Field(default_factory=list)


class SliceComparison(Stat):
    """The same comparison restricted to queries whose ``field`` has ``value``."""

    field: str
    value: str


class PowerEstimate(BaseModel):
    """What this query set can detect for one candidate x metric (normal approx.).

    When the per-query differences do not vary (or there are fewer than two
    queries) the figures are not estimable: ``min_detectable_delta`` and
    ``queries_needed`` are ``None`` and ``not_estimable`` says why.
    """

    candidate: str
    metric: str
    n: int
    sd_diff: float | None = Field(
        description="sd (ddof 1) of the paired per-query differences; None under 2 queries"
    )
    min_detectable_delta: float | None = Field(
        None, description="smallest true difference detected at alpha 0.05 with power 0.8"
    )
    target_delta: float = 0.02
    queries_needed: int | None = Field(
        None, description="queries needed to detect target_delta; None when not estimable"
    )
    not_estimable: str | None = Field(
        None, description="why the power figures are not estimable; None when they are"
    )


class Overlap(BaseModel):
    """How much a candidate and the baseline retrieve the same documents (assay.stats.overlap)."""

    candidate: str
    baseline: str
    k: int = Field(description="depth of Jaccard@k")
    p: float = Field(description="persistence of RBO")
    rbo: float = Field(description="mean extrapolated RBO over the paired queries")
    jaccard: float = Field(description="mean Jaccard@k over the paired queries")
    query_ids: list[str] = Field(default_factory=list)
    rbo_per_query: list[float] = Field(default_factory=list)
    jaccard_per_query: list[float] = Field(default_factory=list)


class Settings(BaseModel):
    """How the comparison was computed."""

    test: str
    alpha: float
    seed: int
    n_permutations: int
    n_resamples: int
    ci_method: str
    confidence: float = 0.95
    adjustment: str = correction_field()
    by: list[str] = Field(default_factory=list)
    p_value_method: str = Field("", description="how the test's p-value was obtained")
    power_method: str = "normal approximation, alpha 0.05, power 0.8"


class ComparisonResult(ResultModel):
    """Statistics comparing candidate systems with a baseline on shared queries."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = COMPARISON_SCHEMA_VERSION
    kind: Literal["comparison"] = "comparison"
    judgments_name: str
    judgments_version: str
    version_mismatch: bool = False
    baseline: str
    systems: list[SystemInfo]
    metrics: list[str]
    n_queries: int = Field(description="queries present in every system (the paired set)")
    settings: Settings
    comparisons: list[MetricComparison]
    slices: list[SliceComparison] = Field(default_factory=list)
    power: list[PowerEstimate] = Field(default_factory=list)
    overlap: list[Overlap] = Field(
        default_factory=list,
        description="RBO and Jaccard@k of each candidate's rankings with the baseline's "
        "(empty when a side is a result file, which holds no rankings)",
    )
    per_query: PairedColumns = Field(
        default_factory=PairedColumns.empty,
        description="paired queries as columns: query_id, text, slices, values, deltas, "
        "first_rel_rank (see assay.stats.paired)",
    )
    warnings: list[str] = Field(default_factory=list)
    policies: list[ScoringPolicy] = Field(
        default_factory=list,
        description="the scoring rules of the compared evaluations, marked where they "
        "differ from trec_eval (empty in files written before they were recorded)",
    )

    def to_json(self, indent: int | None = 2) -> str:
        """The result file's JSON, the per-query columns written from their arrays."""
        fragment = PairedColumns.coerce(self.per_query).json_fragment()
        return self.json_with("per_query", fragment, indent).decode("utf-8")

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """Each compared system's failed queries (live calls, or a run file's sidecar)."""
        return [(s.name, list(s.failed_queries)) for s in self.systems]

    @property
    def candidates(self) -> list[str]:
        """Names of the non-baseline systems, in input order."""
        return [s.name for s in self.systems if s.name != self.baseline]

    def summary(self) -> dict[str, Any]:
        """``{candidate: {metric: verdict}}``, for gates and quick checks."""
        out: dict[str, dict[str, str]] = {}
        for c in self.comparisons:
            out.setdefault(c.candidate, {})[c.metric] = c.verdict
        return out


def _comparison_rows_to_columns(data: dict[str, Any]) -> dict[str, Any]:
    """Comparison schema 1 -> 2: the paired-query rows become columns."""
    rows = data.get("per_query")
    if isinstance(rows, list):
        data["per_query"] = rows_to_columns([dict(r) for r in rows])
    data["schema_version"] = "2"
    return data


MIGRATIONS[("comparison", "1")] = _comparison_rows_to_columns
