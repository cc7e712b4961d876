"""What the gate decides: one :class:`GateCheck` per metric and slice, in a :class:`GateResult`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    model_serializer,
    model_validator,
)

from assay.core.policies import ScoringPolicy, chosen_policies
from assay.results.models import Policy, ResultModel

if TYPE_CHECKING:  # pragma: no cover
    from assay.results.models import EvaluationResult

GATE_SCHEMA_VERSION = "1"
MODES = ("noninferiority", "threshold")
Mode = Literal["noninferiority", "threshold"]


class GateCheck(BaseModel):
    """One metric on all paired queries, or on one slice of them."""

    metric: str
    slice_field: str | None = None
    slice_value: str | None = None
    n: int = Field(description="paired queries in this check")
    baseline_mean: float
    candidate_mean: float
    delta: float = Field(description="candidate mean minus baseline mean")
    ci_low: float
    ci_high: float
    gated: bool = Field(True, description="false for slices smaller than min_n")
    passed: bool
    message: str = Field(description="the evidence in words, without the verdict")
    p_value: float | None = Field(
        None, description="one-sided non-inferiority p-value (only with a correction)"
    )
    p_adjusted: float | None = Field(
        None, description="p_value adjusted over the gated checks (only with a correction)"
    )
    _diffs: Any = PrivateAttr(None)

    @property
    def diffs(self) -> Any:
        """The paired per-query differences (candidate - baseline) when the gate computed them."""
        return self._diffs

    @diffs.setter
    def diffs(self, value: Any) -> None:
        self._diffs = value

    def __eq__(self, other: object) -> bool:
        """Equal fields (the differences kept for the correction are not compared)."""
        if not isinstance(other, GateCheck):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    @model_serializer(mode="wrap")
    def _without_unset_p(self, handler: Any) -> Any:
        """A gate without correction is written as before (no p-value keys)."""
        data = handler(self)
        if isinstance(data, dict) and data.get("p_value", 0) is None:
            data.pop("p_value")
            data.pop("p_adjusted", None)
        return data

    @property
    def status(self) -> str:
        """``"pass"``, ``"regression"`` or ``"not gated"``."""
        if not self.gated:
            return "not gated"
        return "pass" if self.passed else "regression"

    @property
    def label(self) -> str:
        """``"all queries"`` or ``"field=value"``."""
        if self.slice_field is None:
            return "all queries"
        return f"{self.slice_field}={self.slice_value}"


class GateResult(ResultModel):
    """The gate's decision with every number behind it (result kind ``gate``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = GATE_SCHEMA_VERSION
    kind: Literal["gate"] = "gate"
    judgments_name: str
    judgments_version: str
    baseline_judgments_version: str
    version_mismatch: bool = False
    candidate: str
    candidate_config_hash: str | None = None
    corpus_version: str | None = None
    candidate_run_id: int | None = None
    baseline: str
    baseline_source: str = ""
    baseline_run_id: int | None = None
    mode: Mode = "noninferiority"
    metrics: list[str]
    margin: float
    alpha: float
    correction: str = Field(
        "none", description="multiple-testing correction over the gated checks (none: CI rule)"
    )
    confidence: float = Field(description="two-sided level of the reported intervals")
    seed: int
    n_resamples: int
    ci_method: str = "percentile"
    by: list[str] = Field(default_factory=list)
    min_n: int
    n_paired: int
    unpaired_candidate: int = Field(0, description="candidate queries absent from the baseline")
    unpaired_baseline: int = Field(0, description="baseline queries absent from the candidate")
    rule: str
    checks: list[GateCheck]
    failed_queries: list[str] = Field(
        default_factory=list, description="candidate queries whose system call failed"
    )
    max_failed: int = Field(0, description="failed candidate queries the gate tolerates")
    failed_check: str | None = Field(
        None, description="why the failed queries fail the gate (None when within max_failed)"
    )
    passed: bool
    warnings: list[str] = Field(default_factory=list)
    environment: dict[str, Any] = Field(default_factory=dict)
    policy: Policy = Field(
        default_factory=Policy, description="how both sides were scored (missing, ties)"
    )
    policies: list[ScoringPolicy] = Field(
        default_factory=list,
        description="the scoring rules of both sides, marked where they differ from trec_eval",
    )
    _candidate: EvaluationResult | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _recorded_policies(self) -> Self:
        """A gate written before ``policies`` existed gets the rules its ``policy`` records."""
        if "policies" not in self.model_fields_set:
            self.policies = chosen_policies(self.policy.missing, self.policy.ties)
        return self

    @property
    def candidate_evaluation(self) -> EvaluationResult | None:
        """The candidate's evaluation when :func:`gate` scored it (not in the result file)."""
        return self._candidate

    def exit_code(self) -> int:
        """1 when the gate fails (a regression, or too many failed queries), else 0."""
        return 0 if self.passed else 1

    @property
    def failures(self) -> list[GateCheck]:
        """Gated checks that failed."""
        return [c for c in self.checks if c.gated and not c.passed]

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"regression"`` or ``"failed queries"``."""
        if self.passed:
            return "pass"
        return "regression" if self.failures else "failed queries"
