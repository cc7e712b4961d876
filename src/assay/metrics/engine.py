"""The vectorised metric engine: judgments + run -> per-query scores, trec_eval-exact.

Everything runs over flat numpy arrays, with no Python loop per query or per
document:

1. query ids are mapped to the judgment set's answerable queries (Arrow hash
   look-ups over the *unique* ids only); a run's doc ids are never encoded:
   each row keeps a reference to its id and the id's
   :func:`assay.core.pairs.hashes` value;
2. rows are put in rank order: grouped by query, score descending, then doc
   id descending (byte-wise, trec_eval's rule), or kept in the given order;
   an already-ordered run (the usual case) is detected in O(n) and not sorted;
3. only rows whose (query, doc-hash) pair may be judged (a probe of a table
   of the judged pairs, no false negatives) go on; every other row can only count as retrieved,
   so the kernels get the per-query number of retrieved rows instead of
   millions of unjudged rows;
4. those rows find their judgment by one ``searchsorted`` over sorted uint64
   ``(query, doc-hash)`` keys, and a match is kept only when the two doc ids
   are equal, so a hash collision never changes a grade;
5. measures are per-query reductions (``bincount`` with weights) over the
   kept rows, see :mod:`assay.metrics.kernels`.

Missing queries: ``missing='zero'`` is trec_eval ``-c`` (answerable queries
absent from the run score 0, except ``NumRel``, and count in the mean);
``'skip'`` is trec_eval's default (only queries present in the run are
evaluated). No-answer queries are never scored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.core.policies import check_policies
from assay.judgments.models import JudgmentSet
from assay.metrics import dispatch, kernels
from assay.metrics.annotated import named_docs
from assay.metrics.diversity import subtopic_judgments
from assay.metrics.measures import Measure, parse_measure
from assay.metrics.registry import MIN_GEO_MEAN, REGISTRY
from assay.metrics.rows import qrels_arrays, ranked_rows
from assay.metrics.treceval_print import c_log, sequential_sum
from assay.runs.models import Run


@dataclass
class ScoreTable:
    """Per-query values of several measures for one run on one judgment set.

    ``query_ids`` are the evaluated queries (answerable, judgment-set order;
    with ``missing='skip'`` only those in the run). Every array is aligned
    with ``query_ids``. ``first_rel_rank`` is the 1-based rank of the first
    document with grade >= 1 (0 when none was retrieved).
    """

    query_ids: list[str]
    values: dict[Measure, np.ndarray]
    first_rel_rank: np.ndarray
    in_run: np.ndarray
    ignored_queries: int = 0
    missing_queries: int = 0
    tied_pairs_at_cutoff: int = 0
    run_queries: int | None = None  # distinct queries in the run (None: not counted)

    def aggregate(self) -> dict[Measure, float]:
        """Each measure over the evaluated queries, as its family aggregates.

        Means for ratios, sums for counts (``NumRet``, ``NumRel``...), geometric
        means for ``GMAP``, as trec_eval's summary line; see :func:`aggregate`.
        """
        return {m: aggregate(m, v) for m, v in self.values.items()}

    def __len__(self) -> int:
        return len(self.query_ids)


def aggregate(measure: Measure | str, values: Any) -> float:
    """The summary value of one measure's per-query ``values``, as trec_eval prints it.

    ``mean`` families average, ``sum`` families (counts) add up, ``gmean``
    families (GMAP, GMBpref) take ``exp(mean(log(max(v, 1e-5))))``. No value
    gives 0.0 (as trec_eval prints for an empty evaluation), never NaN.
    """

    m = parse_measure(measure)
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return 0.0
    # added one after the other in the queries' order, as trec_eval's loop (numpy's
    # pairwise sum can move the 4th printed decimal at an exact .5)
    if m.aggregate == "sum":
        return sequential_sum(v)
    if m.aggregate == "gmean":
        return math.exp(sequential_sum(c_log(np.maximum(v, MIN_GEO_MEAN))) / v.size)
    return sequential_sum(v) / v.size


def compute(
    judgments: JudgmentSet,
    run: Run,
    measures: list[Measure] | list[str],
    *,
    missing: str = "zero",
    ties: str = "score",
    depth: int | None = None,
    qrels: Any = None,
) -> ScoreTable:
    """Score ``run`` against ``judgments`` with each measure, per query.

    ``missing``: 'zero' (trec_eval -c) or 'skip' (trec_eval default); a
    query absent from the run takes its family's declared ``missing`` value
    (see :mod:`assay.metrics.registry`). ``ties``: 'score' (score descending,
    then doc id descending, as trec_eval) or 'given' (the run's order). Runs
    without scores keep the given order. ``depth`` keeps only the first
    ``depth`` documents of each query (trec_eval -M). ``qrels`` is
    :func:`~assay.metrics.rows.qrels_arrays` of the set when already made (a run
    scored block by block). Raises :class:`UsageError` on an unknown policy or measure.
    """

    check_policies(missing, ties)
    ms = list(dict.fromkeys(parse_measure(m) for m in measures))

    cutoffs = sorted({m.cutoff for m in ms if m.cutoff is not None})
    holes = [m.cutoff for m in ms if m.family == "Hole" and m.cutoff is not None]
    ranked = rank_context(
        judgments,
        run,
        ties=ties,
        depth=depth,
        cutoffs=cutoffs,
        hole_depth=max(holes, default=0),
        qrels=qrels,
        subtopics=any(REGISTRY[m.family].kernel.startswith("diversity_") for m in ms),
    )
    qids, ctx, in_run, rows = ranked.query_ids, ranked.ctx, ranked.in_run, ranked.rows
    nq = len(qids)
    values = {m: _with_missing(m, dispatch.evaluate(m, ctx), in_run) for m in ms}
    first = kernels.first_rank(ctx, 1).astype(np.int64)
    table_ids = qids
    if missing == "skip":
        keep = np.flatnonzero(in_run)
        table_ids = [qids[i] for i in keep.tolist()]
        values = {m: v[keep] for m, v in values.items()}
        first = first[keep]
        in_run = in_run[keep]
    return ScoreTable(
        query_ids=list(table_ids),
        values=values,
        first_rel_rank=first,
        in_run=in_run,
        ignored_queries=rows.ignored,
        missing_queries=int(nq - len(rows.present)),
        tied_pairs_at_cutoff=rows.tied,
        run_queries=int(len(rows.present) + rows.ignored),
    )


@dataclass
class Ranked:
    """A run put in rank order against a judgment set: what every kernel reads."""

    query_ids: list[str]  # the judgment set's evaluated queries, set order
    ctx: Any  # kernels.Context
    in_run: np.ndarray  # bool per query: present in the run
    rows: Any  # Rows (counts of ignored queries and ties)


def rank_context(
    judgments: JudgmentSet,
    run: Run,
    *,
    ties: str = "score",
    depth: int | None = None,
    cutoffs: list[int] | None = None,
    hole_depth: int = 0,
    qrels: Any = None,
    subtopics: bool = False,
) -> Ranked:
    """Map, order and grade the run's rows once (steps 1-4 of the module docstring).

    ``depth`` cuts every ranking to its first ``depth`` documents (trec_eval
    -M); ``cutoffs`` only serve to count score ties straddling a cutoff;
    ``hole_depth`` > 0 also gathers, down to that rank, the rows whose doc any
    judgment of the set names (BEIR's Hole@k, :mod:`assay.metrics.annotated`);
    ``subtopics`` gathers the subtopic judgments the diversity measures read.
    """

    qids = judgments.answerable_ids
    nq = len(qids)
    qrels = qrels_arrays(judgments, qids) if qrels is None else qrels
    named = named_docs(judgments) if hole_depth > 0 else None
    rows = ranked_rows(run, qids, qrels, ties, list(cutoffs or []), (named, hole_depth))
    ctx = kernels.Context(
        nq=nq,
        q=rows.q,
        rank=rows.rank,
        grade=rows.grade,
        qrels_q=qrels.q,
        qrels_grade=qrels.grade,
        retrieved=rows.retrieved,
        annotated=rows.annotated,
        judgment=rows.judgment,
    )
    if subtopics:
        ctx.subtopics = subtopic_judgments(judgments, qrels, qids)
    if depth is not None:
        ctx = ctx.truncated(depth)
    in_run = np.zeros(nq, dtype=bool)
    in_run[rows.present] = True
    return Ranked(list(qids), ctx, in_run, rows)


def _with_missing(m: Measure, values: np.ndarray, in_run: np.ndarray) -> np.ndarray:
    """``values`` with the family's declared value for queries absent from the run."""

    fixed = REGISTRY[m.family].missing
    if fixed is not None and not in_run.all():
        values = values.copy()
        values[~in_run] = fixed
    return values
