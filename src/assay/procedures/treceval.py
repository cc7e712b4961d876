"""``assay trec-eval`` as a library procedure: trec_eval's options checked, then scored.

:func:`trec_eval` takes the files and a :class:`TrecEvalOptions` (trec_eval's
``-m -q -c -M -l -J -n -R -Z``) and returns the lines trec_eval prints and the
warnings about the judgments: trec_eval's own text, byte for byte, not a result
model (the command is listed in :data:`assay.procedures.registry.NO_RESULT`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.metrics.treceval import trec_eval_files
from assay.procedures.arguments import check_order


class TrecEvalOptions(BaseModel):
    """trec_eval's command-line options, by their meaning."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    measures: list[str] = Field(
        default_factory=list,
        description="trec_eval measures, nicknames or measure.params (-m); empty: official",
    )
    per_query: bool = Field(False, description="print every query's values too (-q)")
    complete: bool = Field(False, description="average over every judged query (-c)")
    depth: int | None = Field(None, description="use only the first N documents (-M)")
    level: int = Field(1, description="lowest grade counted as relevant (-l)")
    judged_only: bool = Field(False, description="drop unjudged documents (-J)")
    summary: bool = Field(True, description="print the summary lines (not -n)")
    rel_format: str = Field(
        "qrels", description="judgments format (-R): qrels, qrels_jg, prefs or qrels_prefs"
    )
    zscore_file: Path | None = Field(None, description="z-score reference file (-Z)")

    def model_post_init(self, context: Any, /) -> None:
        """Check the bounds (a UsageError naming ``trec_eval_depth``/``trec_eval_level``)."""

        try:
            if self.depth is not None:
                at_least("trec_eval_depth", self.depth)
            at_least("trec_eval_level", self.level)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None


def trec_eval(
    qrels: str | Path, run: str | Path, options: TrecEvalOptions | None = None
) -> tuple[list[str], list[str]]:
    """Score the TREC ``run`` file against ``qrels`` as trec_eval does.

    Returns (the lines trec_eval prints, warnings about the judgments). A run
    given first and qrels second (``-R qrels``) is refused with one hint.
    """

    options = options or TrecEvalOptions()
    if options.rel_format == "qrels":
        _check_order(qrels, run)
    return trec_eval_files(
        qrels, run, list(options.measures), rel_format=options.rel_format,
        zscore_file=options.zscore_file, per_query=options.per_query,
        complete=options.complete, depth=options.depth, rel=options.level,
        judged_only=options.judged_only, summary=options.summary,
    )  # fmt: skip


def _check_order(qrels: str | Path, run: str | Path) -> None:
    """Refuse a run given first and qrels second with one hint, not a line-by-line list."""

    try:
        check_order(qrels, run)
    except UsageError:
        raise UsageError(
            f"{qrels} looks like a run and {run} like qrels: qrels come first, then the run "
            "(assay trec-eval QRELS RUN, as trec_eval)"
        ) from None
