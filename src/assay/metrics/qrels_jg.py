"""trec_eval's judgment groups (``-R qrels_jg``): several users' judgments of one query.

A ``qrels_jg`` file is a TREC qrels file whose second column names the
judgment group (the user) instead of being ignored: ``qid jg doc_id grade``.
Each group is a complete set of judgments of the query; the ``*_avgjg``
measures (``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``) score the ranking
against every group as trec_eval scores ``map``, ``P`` and ``Rprec_mult``, and
average over the query's groups (then over queries, as usual).

:func:`load_qrels_jg` reads such a file into :class:`JudgmentGroups`: one
judged pseudo-query per (query, group), so the one vectorised engine scores
every group; :meth:`JudgmentGroups.expand` repeats each query's ranking for its
groups and :meth:`JudgmentGroups.average` folds the per-group values back into
per-query means, summed in trec_eval's order (groups sorted by name).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.errors import collecting
from assay.io.textio import decode, read_bytes
from assay.judgments._build import assemble, check_qrels_frame
from assay.judgments._table import read_table
from assay.judgments.trec import queries_from_qrels
from assay.runs.models import Run as RunModel

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.runs.models import Run

_COLUMNS = ("query_id", "iteration", "doc_id", "grade")


@dataclass(frozen=True)
class JudgmentGroups:
    """Judgments of one pseudo-query per (query, judgment group), and the way back.

    ``judgments`` holds the pseudo-queries (id ``"<qid> <jg>"``: whitespace
    cannot occur in either part); ``groups`` maps each pseudo id to its
    ``(query id, group)``.
    """

    judgments: JudgmentSet
    groups: dict[str, tuple[str, str]]

    def expand(self, run: Run) -> Run:
        """``run`` with each query's ranking repeated under every group's pseudo id."""
        import pandas as pd

        pairs = pd.DataFrame(
            [(pid, q) for pid, (q, _) in self.groups.items()], columns=["pseudo", "query_id"]
        )
        frame = run.frame[["query_id", "doc_id", "score"]].astype({"query_id": str})
        both = frame.merge(pairs, on="query_id", how="inner", sort=False)
        both = both.drop(columns="query_id").rename(columns={"pseudo": "query_id"})
        return RunModel(both, name=run.name, path=run.path, has_scores=True)

    def average(self, pseudo_ids: list[str], values: Any) -> tuple[list[str], Any]:
        """Per-query means of per-group ``values``: (sorted query ids, values).

        trec_eval adds the groups in name order and divides by their number.
        """
        keys = [self.groups[p] for p in pseudo_ids]
        order = sorted(range(len(keys)), key=lambda i: keys[i])
        queries = sorted({k[0] for k in keys})
        index = {q: i for i, q in enumerate(queries)}
        group = np.array([index[keys[i][0]] for i in order], dtype=np.int64)
        v = np.asarray(values, dtype=np.float64)[order]
        counts = np.bincount(group, minlength=len(queries))
        sums = np.bincount(group, weights=v, minlength=len(queries))
        return queries, sums / counts


def load_qrels_jg(path: str | Path) -> JudgmentGroups:
    """Read a ``qid jg doc_id grade`` file as trec_eval ``-R qrels_jg`` reads it.

    ``#`` comment lines are skipped; a grade that is not a whole number is
    read with C ``atol`` as :func:`~assay.judgments.trec.load_trec_eval_qrels`
    does. A document judged twice in one group is an error naming the line.
    """

    p = Path(path)
    with collecting(p) as log:
        data = read_bytes(p)
        text = decode(data, log)
        log.raise_if_any()
        frame = read_table(data, text or "", _COLUMNS, log, layout=" ".join(_COLUMNS))
        if frame.empty:
            log.add(None, "empty file: no judgments", hint="write lines: qid jg doc_id grade")
        log.raise_if_any()
        pseudo = frame["query_id"] + " " + frame["iteration"]
        pairs = zip(frame["query_id"], frame["iteration"], strict=True)
        groups = dict(zip(pseudo, pairs, strict=True))
        qrels = check_qrels_frame(frame.assign(query_id=pseudo), log, None, lenient=True)
        log.raise_if_any()
        queries, _ = queries_from_qrels(qrels, log, None, None, text_required=False)
        judgments = assemble(queries, qrels, name=p.stem, path=str(p), format="trec")
        return JudgmentGroups(judgments, groups)
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises
