"""A run: for each query, a ranked list of document ids with optional scores."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.errors import UsageError
from assay.core.pairs import arrow_text, grouped_blocks
from assay.core.policies import TiePolicy
from assay.runs.checks import RankingCheck, item_parts, missing_doc
from assay.runs.order import trec_order

if TYPE_CHECKING:  # pragma: no cover - pandas loads on first use (a run file parses first)
    import pandas as pd


@dataclass(frozen=True, eq=False)
class Run:
    """Ranked lists of one system, stored flat.

    ``frame`` has one row per retrieved document, in the order given by the
    file or the caller, with columns ``query_id`` and ``doc_id`` (str or
    pandas categorical) and ``score`` (float64; all NaN when the run carries no
    scores, see ``has_scores``). Validated on load: no duplicate doc id within
    a query, no NaN or infinite score.
    """

    frame: pd.DataFrame
    name: str = "run"
    path: str | None = None
    has_scores: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(
        cls,
        ranking: Mapping[str, Iterable[Any]],
        *,
        name: str = "run",
        metadata: dict[str, Any] | None = None,
    ) -> Run:
        """Build a run from ``{query_id: items}``.

        Items are doc ids in rank order, ``(doc_id, score)`` pairs or dicts with
        ``doc_id`` (or ``id``) and ``score``. A ``{doc_id: score}`` mapping per
        query (pytrec_eval's shape) is accepted too. Raises
        :class:`assay.core.errors.UsageError` on duplicate doc ids or bad scores.
        """
        import pandas as pd

        qids: list[str] = []
        docs: list[str] = []
        scores: list[float] = []
        check = RankingCheck()
        for qid, items in ranking.items():
            if isinstance(items, Mapping):
                items = list(items.items())
            for item in items:
                doc, score = item_parts(item)
                fault = missing_doc(item) if doc is None else check.add(str(qid), str(doc), score)
                if fault is not None:
                    raise UsageError(f"run {name!r}: {fault.message} ({fault.hint})")
                qids.append(str(qid))
                docs.append(str(doc))
                scores.append(math.nan if score is None else float(score))
        arr = np.asarray(scores, dtype=np.float64)
        frame = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": arr})
        return cls(frame, name=name, has_scores=check.has_scores, metadata=dict(metadata or {}))

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def query_ids(self) -> list[str]:
        """Query ids in first-appearance order."""
        import pandas as pd

        col = self.frame["query_id"]
        if isinstance(col.dtype, pd.CategoricalDtype):
            values = col.cat.categories[_first_codes(col)].tolist()
            return [x if isinstance(x, str) else str(x) for x in values]
        return [str(x) for x in pd.unique(col)]

    def query_id_array(self) -> Any:
        """:attr:`query_ids` as an Arrow string array, made without a Python string each
        when the ids are categories over Arrow (a run file's)."""
        import pandas as pd

        col = self.frame["query_id"]
        if not isinstance(col.dtype, pd.CategoricalDtype):
            return arrow_text(self.query_ids)
        first = _first_codes(col)
        if isinstance(first, slice):  # the categories' own column, no copy
            return arrow_text(col.cat.categories).slice(0, first.stop)
        return arrow_text(col.cat.categories).take(first)

    @property
    def longest(self) -> int:
        """The number of results of the longest ranking (0 for an empty run)."""
        import pandas as pd

        col = self.frame["query_id"]
        if not len(col):
            return 0
        if not isinstance(col.dtype, pd.CategoricalDtype):
            return int(col.value_counts().max())

        codes = col.cat.codes.to_numpy()
        blocks = grouped_blocks(codes, len(col.cat.categories))
        if blocks is not None:  # each query one block of rows (the usual case)
            return int(np.diff(np.r_[blocks[0], len(codes)]).max())
        return int(np.bincount(codes).max())

    def ranked(self, ties: TiePolicy = "score") -> pd.DataFrame:
        """Rows sorted into rank order within each query (queries keep first-seen order).

        ``ties='score'`` sorts by score descending, then doc id descending, as
        trec_eval does; ``'given'`` keeps the given order. Runs without scores
        always keep the given order.
        """
        import pandas as pd

        f = self.frame
        if ties == "given" or not self.has_scores:
            return f
        qcodes, _ = pd.factorize(f["query_id"])
        docs = f["doc_id"]
        if isinstance(docs.dtype, pd.CategoricalDtype):
            dcodes, doc_ids = docs.cat.codes.to_numpy(), docs.cat.categories
        else:
            # row numbers: only tied rows' ids are read (no dictionary of all ids)
            dcodes, doc_ids = np.arange(len(docs)), docs.array
        order = trec_order(qcodes, f["score"].to_numpy(), dcodes, doc_ids)
        return f if order is None else f.iloc[order]

    def to_dict(self, ties: TiePolicy = "score") -> dict[str, list[tuple[str, float]]]:
        """``{query_id: [(doc_id, score), ...]}`` in rank order (score NaN if absent)."""
        out: dict[str, list[tuple[str, float]]] = {}
        r = self.ranked(ties)
        for q, d, s in zip(
            r["query_id"].astype(str), r["doc_id"].astype(str), r["score"], strict=True
        ):
            out.setdefault(q, []).append((d, float(s)))
        return out

    def __repr__(self) -> str:
        return f"Run({self.name!r}, rows={len(self.frame)}, queries={len(self.query_ids)})"


def _first_codes(col: Any) -> Any:
    """The category codes of the categorical ``col`` in order of first appearance: a
    slice of the categories when they are numbered in that order (every run file's)."""
    import pandas as pd

    codes = col.cat.codes.to_numpy()
    if len(codes) > 1:  # a code first appears where the codes change
        codes = codes[np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]]
    top = np.maximum.accumulate(codes) if len(codes) else codes
    if len(codes) and codes[0] == 0 and (np.diff(top) <= 1).all():
        return slice(0, int(top[-1]) + 1)  # numbered as they first appear: no hashing
    return pd.unique(codes) if len(codes) else slice(0, 0)
