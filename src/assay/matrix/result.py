"""The versioned result of a generation matrix (what every matrix renderer reads)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from assay.core.failures import FAILED_CALLS
from assay.core.redact import redact_text
from assay.matrix.reliability import Reliability
from assay.providers.accounting import Usage
from assay.results.models import ResultModel
from assay.stats.corrections import LABELS, correction_field
from assay.stats.verdict import Verdict

MATRIX_SCHEMA_VERSION = "1"

#: How cases are paired when two variants are compared (printed in every report).
PAIRING_POLICY = (
    "variants are compared case by case; a case counts as passed when all its repeats pass "
    "(pass^N); exact McNemar (sign) test on the discordant cases, Holm-adjusted across "
    "comparisons"
)


def pairing_policy(correction: str = "holm") -> str:
    """:data:`PAIRING_POLICY` with the comparisons' correction named."""

    if correction == "none":
        return PAIRING_POLICY.replace(", Holm-adjusted across comparisons", ", not adjusted")
    return PAIRING_POLICY.replace("Holm-adjusted", f"{LABELS[correction]}-adjusted")


class Attempt(BaseModel):
    """One repeat of one cell: the assertions, the answer and its accounting."""

    repeat: int
    passed: bool
    assertions: dict[str, bool | None]
    reasons: list[str] = Field(default_factory=list)
    status: str | None = None
    content: str | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float = 0.0
    cost: float = 0.0
    cached: bool = False

    @property
    def is_failed_call(self) -> bool:
        """The call failed (an error, not a refusal: a refusal is the model's answer)."""
        return self.error is not None and not self.error.startswith("refused: ")


class Cell(BaseModel):
    """One prompt x provider x case, asked ``n`` times."""

    variant: str
    prompt: str
    provider: str
    case_id: str
    kind: str = ""
    attempts: list[Attempt]
    n: int
    passes: int
    pass_rate: float | None
    pass_all: bool = Field(description="pass^N: every repeat passed")
    flaky: bool = Field(description="some repeats passed and some failed")


class VariantSummary(BaseModel):
    """One prompt x provider column over every case."""

    variant: str
    prompt: str
    provider: str
    provider_kind: str
    cases: int
    attempts: int
    pass_rate: float | None = Field(description="passing repeats / repeats")
    pass_all_rate: float | None = Field(description="cases passing every repeat / cases")
    flaky_cells: int
    failures: dict[str, int] = Field(
        default_factory=dict, description="failed repeats per assertion"
    )
    usage: Usage = Field(default_factory=Usage)
    latency_mean: float | None = None
    latency_max: float | None = None


class PairComparison(BaseModel):
    """A candidate variant against the baseline on pass^N per case."""

    baseline: str
    candidate: str
    n: int
    both_pass: int
    baseline_only: int
    candidate_only: int
    neither: int
    delta: float = Field(description="candidate pass^N rate minus the baseline's")
    p_value: float
    p_adjusted: float
    verdict: Verdict


class VariantGate(BaseModel):
    """One variant's non-inferiority check (:func:`assay.matrix.gate.gate_matrix`)."""

    variant: str
    cases: int
    baseline_pass_rate: float
    candidate_pass_rate: float
    delta: float
    ci_low: float
    ci_high: float
    passed: bool


class MatrixGate(BaseModel):
    """The checks and the decision (every variant must pass)."""

    margin: float
    confidence: float
    rule: str
    checks: list[VariantGate] = Field(default_factory=list)
    passed: bool


class MatrixResult(ResultModel):
    """Cells, variant summaries, comparisons and costs of one matrix run."""

    schema_version: str = MATRIX_SCHEMA_VERSION
    kind: Literal["matrix"] = "matrix"
    name: str
    config_path: str | None = None
    config_hash: str
    cases_path: str | None = None
    cases_version: str
    case_ids: list[str]
    case_kinds: dict[str, str] = Field(default_factory=dict)
    prompts: list[dict[str, Any]]
    providers: list[dict[str, Any]]
    judge: dict[str, Any] | None = None
    repeats: int
    assertions: list[str]
    baseline: str
    alpha: float
    correction: str = correction_field()
    policy: str = PAIRING_POLICY
    cells: list[Cell]
    variants: list[VariantSummary]
    comparisons: list[PairComparison] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    judge_usage: Usage | None = None
    max_cost: float | None = None
    stopped_at_budget: bool = False
    aggregate: dict[str, float] = Field(
        default_factory=dict, description="pass rates per variant (what the store indexes)"
    )
    environment: dict[str, Any] = Field(default_factory=dict)
    reliability: Reliability | None = Field(
        None,
        description="pass@k, pass^k and flip rates per case and variant (None in results "
        "written before it was added)",
    )
    gate: MatrixGate | None = Field(
        None,
        exclude=True,
        description="the gate on a baseline result, when asked (not written to the file)",
    )

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls (secrets masked), named for ``max_failed``; none when the
        run fails by :meth:`exit_code` already (a failed gate, a spent budget)."""

        failed = [] if self.exit_code() else self.failed_calls()
        return [(f"matrix {self.name}", [redact_text(f) for f in failed])]

    def exit_code(self) -> int:
        """1 when the gate on a baseline failed or the budget stopped the run, else 0."""
        gate_failed = self.gate is not None and not self.gate.passed
        return 1 if gate_failed or self.stopped_at_budget else 0

    def cell(self, variant: str, case_id: str) -> Cell | None:
        """The cell of ``variant`` on ``case_id``."""
        return next((c for c in self.cells if c.variant == variant and c.case_id == case_id), None)

    def failed_calls(self) -> list[str]:
        """``variant case (repeat n): error`` for every model or baseline call that failed,
        then one entry per failed call of the rubric judge."""
        failed = [
            f"{c.variant} {c.case_id} (repeat {a.repeat + 1}): {a.error}"
            for c in self.cells
            for a in c.attempts
            if a.is_failed_call
        ]
        errors = self.judge_usage.errors if self.judge_usage is not None else 0
        return failed + [f"rubric judge call {i + 1} of {errors}" for i in range(errors)]

    def variant(self, name: str) -> VariantSummary:
        """The summary of one variant (``KeyError`` when unknown)."""
        for v in self.variants:
            if v.variant == name:
                return v
        raise KeyError(name)
