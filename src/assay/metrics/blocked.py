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
from typing import Any

import numpy as np

from assay.core.pairs import arrow_text, forget
from assay.judgments.models import JudgmentSet
from assay.metrics.engine import ScoreTable, compute
from assay.metrics.measures import Measure, parse_measure
from assay.metrics.rows import Positions, positions_in
from assay.runs.blocks import Interleaved, RunBlocks
from assay.runs.budget import map_large_blocks, release_memory
from assay.runs.io import load_run
from assay.runs.models import Run


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

    ms = list(dict.fromkeys(parse_measure(m) for m in measures))
    # Hole@k reads every doc id the whole set names: its blocks keep the whole set
    whole_set = any(m.family == "Hole" for m in ms)
    map_large_blocks()  # freed arrays go back to the system, not to glibc's heaps
    # built once, before the budget is measured: a grouped run found interleaved after
    # its first batch is partitioned with the same cut
    cut = None if whole_set else BlockJudgments(judgments)
    if cut is not None:  # each block hashes its own judgments: the whole set's are let go
        for name in ("query_id", "doc_id"):
            forget(arrow_text(judgments.qrels[name]))
    release_memory()  # what reading the judgments (and cutting them) freed: for the blocks
    # the judgments are loaded: the blocks get what the budget leaves, less what the
    # merged values of every judged query will hold by the end
    blocks.fit(len(judgments.queries), len(ms))
    how = (ms, ties, cut)
    try:
        try:
            return _merged(judgments, blocks, blocks.grouped(), how)
        except Interleaved:
            interleaved = True  # partitioned below: the traceback holds the block read so far
        if interleaved:
            release_memory()  # the batches the grouped reader held
            return _merged(judgments, blocks, blocks.partitioned(), how)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    run = load_run(blocks.path, format="trec", name=blocks.name)
    table = compute(judgments, run, ms, missing="zero", ties=ties)
    return table, run, run


def _merged(
    judgments: JudgmentSet,
    blocks: RunBlocks,
    runs: Iterable[Run],
    how: tuple[Any, str, BlockJudgments | None],
) -> tuple[ScoreTable, RunBlocks, Run]:
    """The tables of ``runs`` (the blocks of ``blocks``) merged query by query (see the
    module docstring); ``how`` is ``(measures, ties, cut)``.

    Each block is scored against the judgments of its own queries (``cut``, a
    :class:`BlockJudgments`), so what a block costs follows the block, not the set;
    ``cut`` is ``None`` when every block needs the whole set (Hole@k). The queries
    no block held are scored last, as absent from the run.
    """
    import pandas as pd

    measures, ties, cut = how
    wanted = set(judgments.no_answer_ids)
    asked: list[Any] = []
    # the rows of the table; its ids (a Python string a query) are named once the blocks
    # are done, and do not add to the memory they peak at
    answerable = int(np.count_nonzero(~judgments.queries["no_answer"].to_numpy(bool)))
    table: ScoreTable | None = None
    for run in runs:
        # the block's ids, as the blocks counted them before handing the block over
        sub, at = _judgments_of(judgments, cut, blocks.ids[-1])
        part = compute(sub, run, measures, missing="zero", ties=ties)
        if wanted:
            frame = run.frame
            asked.append(frame[frame["query_id"].isin(wanted)].astype({"query_id": str}))
        table = _merge(table, part, at, answerable)
        del run, part, sub  # before the next block is read
    if table is not None:
        table.query_ids = list(judgments.answerable_ids)
    table = _absent(judgments, cut, table, (measures, ties))
    table.missing_queries = int(len(table.query_ids) - np.count_nonzero(table.in_run))
    frame = (
        pd.concat(asked, ignore_index=True)
        if asked
        else pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    )
    return table, blocks, Run(frame, name=blocks.name, has_scores=True)


def _judgments_of(
    judgments: JudgmentSet, cut: BlockJudgments | None, query_ids: Any
) -> tuple[JudgmentSet, np.ndarray]:
    """The set a block of ``query_ids`` is scored against, and the row in the whole
    table of each of its rows (the whole set itself when ``cut`` is ``None``)."""
    if cut is None:
        return judgments, np.arange(len(judgments.answerable_ids))
    return cut.of(query_ids)


def _absent(
    judgments: JudgmentSet,
    cut: BlockJudgments | None,
    table: ScoreTable | None,
    how: tuple[Any, str],
) -> ScoreTable:
    """``table`` with the values the engine gives the queries no block held."""
    measures, ties = how
    ids = judgments.answerable_ids
    missing = np.arange(len(ids)) if table is None else np.flatnonzero(~table.in_run)
    if table is not None and not len(missing):
        return table
    sub, at = _judgments_of(judgments, cut, [ids[i] for i in missing.tolist()])
    part = compute(sub, Run.from_dict({}), measures, missing="zero", ties=ties)
    if table is None:
        table = _empty(part, len(ids))
        table.query_ids = list(ids)
    keep = ~table.in_run[at]  # the whole set (Hole@k) scores every query: keep the blocks'
    rows = at[keep]
    for m, v in part.values.items():
        table.values[m][rows] = v[keep]
    table.first_rel_rank[rows] = part.first_rel_rank[keep]
    return table


class BlockJudgments:
    """The judgments of a block's queries, cut from a set without a pass over its ids.

    The query of every judgment (its row in the set's queries) is found once;
    :meth:`of` then gathers a block's rows with numpy.
    """

    def __init__(self, judgments: JudgmentSet) -> None:
        queries = judgments.queries
        self.judgments = judgments
        self.index = queries.index
        answerable = ~queries["no_answer"].to_numpy(bool)
        #: the row of each query in the table (answerable queries only), -1 for the others
        self.slot = np.where(answerable, np.cumsum(answerable) - 1, -1)
        # looked up in Arrow: no Python string per judgment (84 MB for 1.5 million)
        self.owner = positions_in(judgments.qrels["query_id"], self.index, np.int32)
        self.positions = Positions(self.index)  # a block's queries: no pass over the set

    def of(self, query_ids: Any) -> tuple[JudgmentSet, np.ndarray]:
        """``(set, rows)``: the set's queries among ``query_ids`` (a list or an Arrow
        array of strings), in the set's order, with their judgments, and the row in the
        whole set's table of each of its answerable queries."""
        j = self.judgments
        found = self.positions(query_ids)
        rows = np.unique(found[found >= 0])
        member = np.zeros(len(self.index) + 1, dtype=bool)  # the last (-1): of no query
        member[rows] = True
        qrels = j.qrels.iloc[np.flatnonzero(member[self.owner])]
        subtopics = j.subtopics
        if subtopics is not None:
            subtopics = subtopics[subtopics["query_id"].isin(self.index[rows])]
        sub = JudgmentSet(
            j.queries.iloc[rows],
            qrels,
            name=j.name,
            path=j.path,
            format=j.format,
            prefer=j.prefer,
            subtopics=subtopics,
        )
        slots = self.slot[rows]
        return sub, slots[slots >= 0]


def _empty(part: ScoreTable, n: int) -> ScoreTable:
    """A table of ``n`` queries (their ids left to the caller), none in the run yet, with
    the arrays ``part``'s kinds."""
    return ScoreTable(
        query_ids=[],
        values={m: np.zeros(n, dtype=v.dtype) for m, v in part.values.items()},
        first_rel_rank=np.zeros(n, dtype=part.first_rel_rank.dtype),
        in_run=np.zeros(n, dtype=bool),
        run_queries=0,
    )


def _merge(table: ScoreTable | None, part: ScoreTable, at: np.ndarray, n: int) -> ScoreTable:
    """``table`` (a new one of ``n`` queries when ``None``) with the queries ``part`` holds
    in its block; ``part``'s row ``i`` is ``table``'s row ``at[i]``."""
    if table is None:
        table = _empty(part, n)
    sel = part.in_run
    rows = at[sel]
    for m, v in part.values.items():
        table.values[m][rows] = v[sel]
    table.first_rel_rank[rows] = part.first_rel_rank[sel]
    table.in_run[rows] = True
    table.ignored_queries += part.ignored_queries
    table.tied_pairs_at_cutoff += part.tied_pairs_at_cutoff
    table.run_queries = (table.run_queries or 0) + (part.run_queries or 0)
    return table
