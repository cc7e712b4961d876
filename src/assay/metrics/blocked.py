"""Score a run block by block (:class:`~assay.runs.blocks.RunBlocks`): the same table.

Each block holds every line of its queries, so each query's values come from
one block exactly as from the whole run; a query absent from every block
keeps the value the engine gives an absent query. The counts (ignored
queries, ties at a cutoff, queries in the run) add up over the blocks, and
aggregates are taken afterwards over the merged per-query values, so every
measure family (means, sums, geometric means) gives today's figures, bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.metrics.engine import ScoreTable, compute
from assay.metrics.rows import qrels_arrays
from assay.runs.blocks import Interleaved, RunBlocks
from assay.runs.io import load_run
from assay.runs.models import Run

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure


def compute_blocked(
    judgments: JudgmentSet,
    blocks: RunBlocks,
    measures: Sequence[Measure] | Sequence[str],
    *,
    ties: str = "score",
) -> tuple[ScoreTable, Run | RunBlocks, Run]:
    """``(table, run, no-answer rows)``: :func:`~assay.metrics.engine.compute` with
    ``missing='zero'`` of the run ``blocks`` stands for.

    ``run`` is ``blocks`` (its counts filled in), or the whole run when the file
    needs the whole reader (a line pyarrow's streaming parse refuses: tabs,
    trailing fields, a bad line to name); the last item holds the run's lines of
    the set's no-answer queries (what :func:`no_answer_rows` reads).
    """
    import pyarrow as pa

    qrels = qrels_arrays(judgments, judgments.answerable_ids)
    blocks.fit()  # the judgments are loaded: the blocks get what the budget leaves
    how = (measures, ties, qrels)
    try:
        try:
            return _merged(judgments, blocks, blocks.grouped(), how)
        except Interleaved:
            interleaved = True  # partitioned below: the traceback holds the block read so far
        if interleaved:
            return _merged(judgments, blocks, blocks.partitioned(), how)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    run = load_run(blocks.path, format="trec", name=blocks.name)
    table = compute(judgments, run, list(measures), missing="zero", ties=ties, qrels=qrels)
    return table, run, run


def _merged(
    judgments: JudgmentSet, blocks: RunBlocks, runs: Iterable[Run], how: tuple[Any, str, Any]
) -> tuple[ScoreTable, RunBlocks, Run]:
    """The tables of ``runs`` (the blocks of ``blocks``) merged query by query (see the
    module docstring); ``how`` is ``(measures, ties, qrels)``."""
    import pandas as pd

    measures, ties, qrels = how
    wanted = set(judgments.no_answer_ids)
    asked: list[Any] = []
    table: ScoreTable | None = None
    for run in runs:
        part = compute(judgments, run, list(measures), missing="zero", ties=ties, qrels=qrels)
        if wanted:
            frame = run.frame
            asked.append(frame[frame["query_id"].isin(wanted)].astype({"query_id": str}))
        table = _merge(table, part)
        del run, part  # before the next block is read
    if table is None:  # no line at all
        table = compute(judgments, Run.from_dict({}), list(measures), missing="zero", ties=ties)
    table.missing_queries = int(len(table.query_ids) - np.count_nonzero(table.in_run))
    frame = (
        pd.concat(asked, ignore_index=True)
        if asked
        else pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    )
    return table, blocks, Run(frame, name=blocks.name, has_scores=True)


def _merge(table: ScoreTable | None, part: ScoreTable) -> ScoreTable:
    """``table`` with the queries ``part`` holds (in its block) taken from ``part``."""
    if table is None:
        part.values = {m: np.array(v) for m, v in part.values.items()}
        part.first_rel_rank = np.array(part.first_rel_rank)
        part.in_run = np.array(part.in_run)
        return part
    sel = part.in_run
    for m, v in part.values.items():
        table.values[m][sel] = v[sel]
    table.first_rel_rank[sel] = part.first_rel_rank[sel]
    table.in_run |= sel
    table.ignored_queries += part.ignored_queries
    table.tied_pairs_at_cutoff += part.tied_pairs_at_cutoff
    table.run_queries = (table.run_queries or 0) + (part.run_queries or 0)
    return table
