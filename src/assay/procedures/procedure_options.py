"""The option models of one procedure each, beside the shared ones of :mod:`.options`.

:func:`~assay.evaluate` takes :class:`EvaluationOptions`, :func:`~assay.compare`
:class:`ComparisonOptions`, :func:`~assay.gate` :class:`GateOptions` and
:func:`~assay.verify_suite` :class:`PairedTestOptions`, each beside the shared
:class:`~assay.procedures.options.ScoringOptions` and
:class:`~assay.procedures.options.SourceOptions`. The values are checked where
they are used, with the same errors through the library and the command line
(a :class:`~assay.core.errors.UsageError` naming the option).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _one_or_many(value: Any) -> Any:
    """A field name given alone is a list of one (``by="language"``)."""
    return [value] if isinstance(value, str) else value


#: Metadata field names: a list, or one name alone.
FieldNames = Annotated[list[str], BeforeValidator(_one_or_many)]


class EvaluationOptions(BaseModel):
    """What :func:`~assay.evaluate` adds to the scoring: a name, abstention, calibration."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(
        None, description="display name of the run (None: the run file's tag or the system's)"
    )
    abstain_below: float | None = Field(
        None,
        description="top score below which a system counts as returning nothing confident "
        "(None: no abstention figures)",
    )
    prefer: str | None = Field(
        None,
        description="which label wins where a label file grades a pair twice: 'human' or "
        "'model' (None: such a pair is refused)",
    )
    calibrate: Path | None = Field(
        None, description="people's labels on a sample: add PPI++ intervals (None: none)"
    )


class PairedTestOptions(BaseModel):
    """The paired test and bootstrap of :func:`~assay.verify_suite` (and of compare)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(0.05, description="significance level")
    seed: int = Field(0, description="seed of the permutations, the resamples and the shuffle")
    n_permutations: int = Field(10000, description="random sign flips of the randomization test")
    n_resamples: int = Field(10000, description="bootstrap resamples of the CIs")


class ComparisonOptions(PairedTestOptions):
    """How :func:`~assay.compare` pairs the systems and tests their differences."""

    baseline: str | int | list[str | int] = Field(
        0,
        description="the baseline: a system name or an index (the first: 0), or a list of "
        "them, each compared with every other system, each pair once",
    )
    all_pairs: bool = Field(False, description="compare every pair of systems (one family)")
    by: FieldNames = Field(
        default_factory=list,
        description="metadata fields to slice on (';'-separated tags count in each tag's slice)",
    )
    test: str = Field(
        "randomization", description="paired test: randomization, t, wilcoxon or bootstrap"
    )
    ci_method: str = Field("percentile", description="bootstrap CI method: percentile or bca")
    top: int = Field(5, description="queries with the largest losses and gains listed")
    correction: str | None = Field(
        None,
        description="multiple-testing correction of assay.stats.corrections (None: holm)",
    )
    overlap_k: int = Field(10, description="depth of the runs' Jaccard@k overlap")
    rbo_p: float = Field(0.9, description="persistence p of the runs' rank-biased overlap")


class GateOptions(BaseModel):
    """The decision rule of :func:`~assay.gate`, and where its baseline may come from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    margin: float = Field(0.01, description="largest tolerated drop of the mean")
    mode: str = Field(
        "noninferiority",
        description="noninferiority (the CI's lower bound decides) or threshold (the mean)",
    )
    by: FieldNames = Field(
        default_factory=list, description="metadata fields whose every slice is gated too"
    )
    min_n: int = Field(10, description="slices with fewer paired queries are listed, not gated")
    alpha: float = Field(
        0.05, description="one-sided level: the (1 - 2*alpha) CI's lower bound is used"
    )
    seed: int = Field(0, description="bootstrap seed")
    n_resamples: int = Field(10000, description="bootstrap resamples")
    correction: str | None = Field(
        None, description="multiple-testing correction of the checks (None: none)"
    )
    max_failed: int = Field(
        0, description="failed candidate queries before the gate fails whatever the scores"
    )
    store: str | None = Field(
        None,
        description="history store of a baseline 'last' or run id "
        "(None: .assay/history.db or $ASSAY_STORE)",
    )
