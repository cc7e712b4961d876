"""Per-slice statistics of a comparison: one family (one correction) over every slice.

A slice is the paired queries sharing one value of a per-query metadata field;
``;``-separated tags count in each tag's slice. Step 3b of
:func:`assay.stats.compare.compare`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.core.progress import progress
from assay.core.tags import split_tags
from assay.stats.bootstrap import bootstrap_ci_rows
from assay.stats.corrections import adjust
from assay.stats.models import SliceComparison
from assay.stats.power import effect_size
from assay.stats.significance import paired_pvalues
from assay.stats.summary import paired_row
from assay.stats.verdict import TIE_TOLERANCE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def stats_rows(
    diffs: np.ndarray,
    *,
    test: str,
    n_permutations: int,
    n_resamples: int,
    ci_method: str,
    seed: int,
) -> dict[str, Any]:
    """Per-row means, CIs, p-values, effect sizes and win/loss/tie counts."""
    import numpy as np

    rows = int(diffs.shape[0])
    with progress("bootstrap CIs and paired tests", total=2 * rows, unit="steps") as tick:
        low, high = bootstrap_ci_rows(diffs, n_resamples=n_resamples, method=ci_method, seed=seed)
        tick(rows)
        p = paired_pvalues(
            diffs, test=test, n_permutations=n_permutations, n_resamples=n_resamples, seed=seed
        )
        tick(rows)
    return {
        "delta": diffs.mean(axis=1),
        "low": low,
        "high": high,
        "p": p,
        "effect": [effect_size(row) for row in diffs],
        "wins": (diffs > TIE_TOLERANCE).sum(axis=1),
        "losses": (diffs < -TIE_TOLERANCE).sum(axis=1),
        "ties": (np.abs(diffs) <= TIE_TOLERANCE).sum(axis=1),
    }


def _field_values(
    field: str, paired: list[str], rows_by_system: list[dict[str, Any]], metric_names: list[str]
) -> list[Any]:
    """Each paired query's value of ``field`` (from the first system that has one)."""
    if all(field not in t[q] for t in rows_by_system for q in paired):
        available = sorted(
            {
                k
                for k in rows_by_system[0][paired[0]]
                if k not in metric_names and k not in ("query_id", "text", "first_rel_rank")
            }
        )
        raise UsageError(
            f"no per-query field {field!r} to slice by; fields: {', '.join(available)}", "by"
        )
    return [
        next((t[q][field] for t in rows_by_system if t[q].get(field) is not None), None)
        for q in paired
    ]


def slice_comparisons(
    by: list[str],
    paired: list[str],
    rows_by_system: list[dict[str, Any]],
    diffs: np.ndarray,
    values: np.ndarray,
    candidates: list[str],
    metric_names: list[str],
    alpha: float,
    common: dict[str, Any],
    *,
    correction: str = "holm",
) -> tuple[list[SliceComparison], dict[str, list[str | None]]]:
    """Per-slice statistics (their own family, adjusted by ``correction``) and each
    query's raw slice value."""
    import numpy as np

    raw: dict[str, list[str | None]] = {}
    pending: list[tuple[str, str, np.ndarray, dict[str, Any]]] = []
    for field in by:
        found = _field_values(field, paired, rows_by_system, metric_names)
        raw[field] = [None if v is None else str(v) for v in found]
        labels: dict[str, list[int]] = {}
        for j, v in enumerate(found):
            for label in split_tags(v):
                labels.setdefault(label, []).append(j)
        for label in sorted(labels):
            idx = np.array(labels[label])
            pending.append((field, label, idx, stats_rows(diffs[:, idx], **common)))
    if not pending:
        return [], raw
    p_adj = adjust(np.concatenate([st["p"] for *_, st in pending]), correction)
    out: list[SliceComparison] = []
    k = 0
    for field, label, idx, st in pending:
        out += _slice_rows(
            field, label, idx, st, p_adj[k:], values, candidates, metric_names, alpha
        )
        k += len(st["p"])
    return out, raw


def _slice_rows(
    field: str,
    label: str,
    idx: np.ndarray,
    st: dict[str, Any],
    p_adj: np.ndarray,
    values: np.ndarray,
    candidates: list[str],
    metric_names: list[str],
    alpha: float,
) -> list[SliceComparison]:
    """One slice's rows: every candidate x metric."""

    n_met = len(metric_names)
    out = []
    for ci, cand in enumerate(candidates):
        for mi, metric in enumerate(metric_names):
            row = ci * n_met + mi
            figures = paired_row(
                metric, values[0, mi, idx], values[ci + 1, mi, idx], st, p_adj, row, alpha
            )
            out.append(
                SliceComparison(
                    field=field,
                    value=label,
                    candidate=cand,
                    metric=metric,
                    n=int(idx.size),
                    **figures,
                )
            )
    return out
