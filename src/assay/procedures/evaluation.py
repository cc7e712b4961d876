"""``evaluate``: judgments + a run (or a live system) -> an :class:`EvaluationResult`.

The run comes through the one source path (:mod:`assay.procedures.sources`),
so a run file's sidecar, a live system's failures and the run cache count the
same through the library and the CLI. The metric kernels live in
:mod:`assay.metrics.engine`; rendering lives in :mod:`assay.report`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.procedures.arguments import prepare
from assay.procedures.calibration import attach_calibration
from assay.procedures.calibration import calibrate as ppi
from assay.procedures.live import executing, live_keywords, run_or_system, source_documents
from assay.procedures.options import ScoringOptions, SourceOptions, check_memory, option_object
from assay.procedures.procedure_options import EvaluationOptions
from assay.procedures.sources import load_source, reading_beside
from assay.results.models import EvaluationResult
from assay.runs.blocks import blocked_run
from assay.runs.budget import judgments_mb

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.runs.blocks import RunBlocks

from assay.procedures.scoring import score, score_run

__all__ = ["evaluate", "score", "score_run"]


def evaluate(
    judgments: JudgmentSet | str | Path,
    run: Any = None,
    metrics: Iterable[str | Measure] | None = None,
    by: Iterable[str] | str = (),
    options: ScoringOptions | None = None,
    *,
    source: SourceOptions | None = None,
    evaluation: EvaluationOptions | None = None,
) -> EvaluationResult:
    """Score a run or a search function on a judgment set (judgments first, like the peers).

    ``run`` is a :class:`~assay.runs.models.Run`, a path to a TREC or JSONL run
    file (its ``.json`` sidecar is read: failed queries are reported, not scored
    as 0), a ``{query_id: [doc_id, ...]}`` mapping, a
    :class:`~assay.systems.base.System`, or a plain function ``(query_text, k)``
    returning doc ids (or dicts with ``doc_id`` and ``score``). Functions and
    systems are called for every query; a failing call is retried, then reported
    as failed, never scored as an empty list. ``metrics`` are ir_measures names
    (default ``R@5 R@10 RR nDCG@10``); ``by`` names metadata fields to group by
    (``;``-separated tags split).

    ``options`` (:class:`~assay.procedures.options.ScoringOptions`) say how the
    judgments and the run are read and scored: the ``missing`` and ``ties``
    policies (trec_eval's ``-c`` and its tie order by default), ``k``, the retries
    and run cache of a live function, ``mix_synthetic``, ``ignore_identical_ids``
    (as BEIR) and the ``memory`` budget beyond which a TREC run file is scored in
    blocks of whole queries, bit for bit the same (:mod:`assay.runs.blocks`).
    ``source`` (:class:`~assay.procedures.options.SourceOptions`) names a live
    system to run instead of ``run`` and how it is built and called.
    ``evaluation`` (:class:`~assay.procedures.procedure_options.EvaluationOptions`)
    names the run and adds abstention figures or PPI++ intervals
    (:func:`~assay.procedures.calibration.calibrate`).

    Returns an :class:`~assay.results.models.EvaluationResult`; ``.per_query_frame()``
    gives the per-query rows as a pandas DataFrame.
    """
    options = option_object(options, ScoringOptions, "options")
    extra = option_object(evaluation, EvaluationOptions, "evaluation")
    keywords = live_keywords(source, options)
    run = run_or_system(
        run,
        source,
        judgments,
        both="give a RUN file or --system NAME, not both",
        neither="give a RUN file to score, or --system NAME to run a system",
    )
    blocks = _blocks(run, judgments, options, extra)
    # a run file is read while the judgments load (a blocked run: its first blocks)
    with reading_beside(run if blocks is None else blocks) as given:
        js, measures, by_fields = _prepared(judgments, run, metrics, by, options, extra, source)
    try:
        with executing(source):
            loaded = load_source(
                given,
                js,
                k=options.k,
                name=extra.name,
                progress=options.progress,
                allow_version_mismatch=options.allow_version_mismatch,
                **keywords,
            )
        result = score(
            loaded,
            js,
            measures,
            by_fields,
            missing=options.missing,
            ties=options.ties,
            abstain_below=extra.abstain_below,
            ignore_identical_ids=options.ignore_identical_ids,
        )
    finally:
        if blocks is not None:  # stop reading ahead, also when the sidecar or a block failed
            blocks.discard()
    if extra.calibrate is None:
        return result

    # model labels on every query + people's sample, on the run scored
    return attach_calibration(result, ppi(js, loaded.run, extra.calibrate, metrics=result.metrics))


def _blocks(
    run: Any, judgments: Any, options: ScoringOptions, extra: EvaluationOptions
) -> RunBlocks | None:
    """The run file's blocks when reading it whole would exceed ``options.memory``; the
    first are sized to leave room for the ``judgments`` still to be loaded."""
    check_memory(options.memory)
    if extra.abstain_below is not None or extra.calibrate is not None:
        return None
    if options.ignore_identical_ids:
        return None

    loaded = not isinstance(judgments, str | Path)  # a JudgmentSet: held already
    coming = 0.0 if loaded else judgments_mb(judgments)
    return blocked_run(run, options.memory, extra.name, coming)  # too large to read whole


def _prepared(
    judgments: Any,
    run: Any,
    metrics: Iterable[str | Measure] | None,
    by: Iterable[str] | str,
    options: ScoringOptions,
    extra: EvaluationOptions,
    source: SourceOptions | None,
) -> tuple[JudgmentSet, list[Measure], list[str]]:
    """The arguments checked and the judgments loaded (:func:`prepare`)."""
    load = {
        "queries": options.queries,
        "split": options.split,
        "corpus_ids": source_documents(source),
    }
    return prepare(
        judgments,
        run,
        metrics,
        by,
        options.missing,
        options.ties,
        options.k,
        options.judgments_format,
        extra.prefer,
        options.mix_synthetic,
        load={name: value for name, value in load.items() if value is not None},
    )
