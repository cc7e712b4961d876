"""``tune``: choose a system's parameters by cross-validation over queries and judge the
choice on held-out queries only.

Every parameter set's run is computed once (run cache, executor in force) and scored per
query; the queries are dealt into folds; each fold's set is the best on the other folds
and is scored on the fold; the cross-validated run (each query answered by the set chosen
without it) is compared with the system as configured by :func:`assay.stats.compare.compare`,
the code ``assay compare`` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.bounds import at_least, level, one_of
from assay.core.errors import UsageError
from assay.core.progress import progress
from assay.metrics.measures import parse_measures
from assay.procedures.arguments import as_judgments
from assay.procedures.live import executing, source_cache
from assay.procedures.options import ScoringOptions, SourceOptions
from assay.procedures.tuning_parts import assemble, read_by
from assay.stats.bootstrap import METHODS
from assay.stats.corrections import check_correction, correction_field
from assay.stats.significance import TESTS
from assay.tuning import space
from assay.tuning.folds import deal
from assay.tuning.runs import SetBuilder, run_all

if TYPE_CHECKING:  # pragma: no cover
    from assay.tuning.result import TuningResult


class TuneOptions(BaseModel):
    """What is tuned, for which measures, and how the choice is judged."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    params: tuple[str, ...] = Field(
        description="KEY=V1,V2,... per tuned key; a dotted key reaches a nested table "
        "(params.seed, weights.bm25); values are TOML"
    )
    metrics: tuple[str, ...] = Field(description="measures; the first is the objective")
    folds: int = Field(5, description="folds of the cross-validation over queries")
    seed: int = Field(0, description="seed of the folds, the random search and the statistics")
    by: str | None = Field(None, description="query field the folds are stratified by")
    search: str = Field(
        "grid", description="grid: every set; random: --trials sets drawn from the grid"
    )
    trials: int | None = Field(None, description="sets drawn by the random search")
    test: str = Field("randomization", description="paired test of the held-out comparison")
    alpha: float = Field(0.05, description="significance level of the adjusted p-values")
    correction: str | None = correction_field("holm")
    n_permutations: int = Field(10000, description="sign flips of the randomization test")
    n_resamples: int = Field(10000, description="bootstrap resamples of the intervals")
    ci_method: str = Field("percentile", description="bootstrap interval: percentile or bca")

    def model_post_init(self, context: Any, /) -> None:
        """Check the values before any system runs (a UsageError naming the option)."""

        try:
            one_of("--search", self.search, ("grid", "random"))
            one_of("--test", self.test.lower(), TESTS)
            one_of("--ci", self.ci_method.lower(), METHODS)
            check_correction(self.correction)
            at_least("--folds", self.folds, 2)
            if self.trials is not None:
                at_least("--trials", self.trials)
                if self.search != "random":
                    raise UsageError("--trials needs --search random", "--trials")
            level("--alpha", self.alpha)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


def tune(
    judgments: Any, options: TuneOptions, source: SourceOptions, scoring: ScoringOptions | None
) -> TuningResult:
    """Tune ``source.system`` over ``options.params`` on ``judgments`` (see the module)."""

    scoring = scoring or ScoringOptions()
    if not options.metrics:
        raise UsageError("give at least one measure (-m); the first is the objective", "-m")
    grid_space = space.parse_params(list(options.params))
    sets = space.grid(grid_space)
    if options.search == "random":
        sets = space.sample(sets, options.trials or 20, options.seed)
    builder = SetBuilder(source, judgments, grid_space)
    for params in sets:
        builder.check(params)
    load = {"split": scoring.split, **({"queries": scoring.queries} if scoring.queries else {})}
    js = as_judgments(judgments, scoring.judgments_format, **load)
    # refused before anything runs: an unknown field, measure, or more folds than queries
    read_by(js, options.by, js.query_ids)
    parse_measures(list(options.metrics))
    deal(len(js.answerable_ids), options.folds, options.seed)
    with executing(source):
        systems = [builder.build(None)] + [builder.build(p) for p in sets]
        with progress("tuning", total=len(systems), unit="configurations") as tick:
            outcomes = run_all(systems, js, scoring.k, source, source_cache(source), tick)
    return assemble(js, builder, sets, grid_space, outcomes, options, scoring)
