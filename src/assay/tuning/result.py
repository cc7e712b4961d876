"""The ``tuning`` result: the grid, each fold's choice, the held-out comparison, the optimism
and the recommended set with its honest (held-out) score."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from assay.results.files import ResultModel
from assay.stats.models import ComparisonResult


class GridPoint(BaseModel):
    """One parameter set and its means over every query."""

    params: dict[str, Any] = Field(description="The tuned keys and their values in this set.")
    means: dict[str, float | None] = Field(
        description="Mean of each measure over every query (in-sample: optimistic)."
    )
    cached: bool = Field(description="True when its run came from the run cache.")


class FoldChoice(BaseModel):
    """One fold of the cross-validation."""

    fold: int = Field(description="The fold's number, from 0.")
    queries: list[str] = Field(description="The query ids held out in this fold.")
    chosen: dict[str, Any] = Field(description="The set with the best objective on the others.")
    chosen_index: int = Field(description="The chosen set's position in `grid`.")
    train_score: float = Field(description="The chosen set's mean objective on the other folds.")
    held_out_score: float = Field(description="The chosen set's mean objective on this fold.")


class Recommended(BaseModel):
    """The set chosen on every query, with the score to expect of it."""

    params: dict[str, Any] = Field(description="The set with the best mean objective overall.")
    index: int = Field(description="Its position in `grid`.")
    honest_score: dict[str, float] = Field(
        description="Per measure: the cross-validated (held-out) estimate, the score to "
        "expect of a set tuned this way on new queries."
    )
    in_sample_score: dict[str, float | None] = Field(
        description="Per measure: its mean on the queries it was chosen on (optimistic)."
    )


class TuningResult(ResultModel):
    """What `assay tune` concluded."""

    schema_version: str = "1"
    kind: Literal["tuning"] = "tuning"
    system: str = Field(description="The system tuned (a name in assay.toml, a type or spec).")
    system_type: str = Field(description="Its system type.")
    judgments_name: str = Field(description="The judgment set's name.")
    judgments_version: str = Field(description="The judgment set's version (content hash).")
    objective: str = Field(description="The measure maximised (the first measure).")
    metrics: list[str] = Field(description="Every measure, the objective first.")
    parameters: dict[str, list[Any]] = Field(description="Each tuned key and its values.")
    search: Literal["grid", "random"] = Field(description="Every set, or a random sample.")
    n_folds: int = Field(description="Folds of the cross-validation over queries.")
    seed: int = Field(description="Seed of the folds, the sample and the statistics.")
    by: str | None = Field(description="The query field the folds are stratified by.")
    n_queries: int = Field(description="Queries dealt into folds.")
    grid: list[GridPoint] = Field(description="Every set evaluated, in grid order.")
    folds: list[FoldChoice] = Field(description="Each fold's choice and scores.")
    held_out: ComparisonResult = Field(
        description="The system as configured against the cross-validated choice, per query "
        "on held-out scores only (paired test, intervals and the correction as `assay compare`)."
    )
    optimism: dict[str, float] = Field(
        description="Per measure: mean over folds of the chosen set's training score minus "
        "its held-out score (how much picking on the same queries flatters)."
    )
    recommended: Recommended = Field(description="The set to use, with its honest score.")
    computed: int = Field(description="Runs computed by calling the system.")
    cached: int = Field(description="Runs read from the run cache.")
