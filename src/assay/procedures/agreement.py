"""How well two label sets agree: person vs model, person vs person, review files.

:func:`agreement` is the one entry point (``assay judge agree`` calls it): it
pairs the labels the two sets have in common and reports accuracy, the
confusion matrix, Cohen's kappa (unweighted, linear, quadratic), Krippendorff's
alpha (nominal, ordinal), agreement once grades are binarised at a threshold,
per-grade precision and recall, the same per language and query class, and —
given runs — whether the two sets rank the systems alike (Kendall's tau).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from assay.core.errors import UsageError
from assay.core.tags import group_by_tags
from assay.io.fileio import write_text_atomic
from assay.judges.labels import GROUP_FIELDS, LabelTable, read_labels, to_judgments
from assay.judges.stats import AgreementStats, binary_stats, confusion, pair_stats
from assay.metrics.measures import parse_measure
from assay.procedures.scoring import score_run
from assay.results.models import ResultModel
from assay.runs.io import load_run

#: Default measure of the system-ranking comparison.
RANKING_MEASURE = "nDCG@10"


class AgreementResult(ResultModel):
    """Agreement of a candidate label set with a reference label set."""

    schema_version: str = "1"
    kind: Literal["agreement"] = "agreement"
    reference: dict[str, Any]
    candidate: dict[str, Any]
    n: int
    accuracy: float | None
    cohen_kappa: float | None
    weighted_kappa: dict[str, float | None]
    krippendorff_alpha: dict[str, float | None]
    confusion: dict[str, Any] = Field(
        description="labels and counts[i][j]: pairs the reference graded labels[i] "
        "and the candidate labels[j]"
    )
    only_reference: int = 0
    only_candidate: int = 0
    binary: dict[str, Any] = Field(default_factory=dict)
    per_grade: dict[str, dict[str, float | int | None]] = Field(default_factory=dict)
    groups: dict[str, dict[str, AgreementStats]] = Field(default_factory=dict)
    ranking: dict[str, Any] | None = None
    policy: dict[str, Any] = Field(default_factory=dict)
    disagreements: list[dict[str, Any]] = Field(default_factory=list)


def agreement(
    reference: LabelTable | str | Path,
    candidate: LabelTable | str | Path,
    *,
    threshold: int = 1,
    max_grade: int | None = None,
    by: Sequence[str] | None = None,
    runs: Sequence[str | Path] = (),
    measure: str = RANKING_MEASURE,
    keep_disagreements: bool = False,
    prefer: str | None = None,
    disagreements_file: str | Path | None = None,
) -> AgreementResult:
    """Compare ``candidate`` labels with ``reference`` labels on the pairs both have.

    Label sets are :class:`LabelTable` objects or paths :func:`read_labels`
    reads. ``threshold``: a grade at or above it counts as relevant for the
    binary figures. ``max_grade`` clips higher grades to it (a policy shown in
    the result). ``by`` names query metadata fields to break the figures down
    by (default: ``language`` and ``query_class`` where present). ``runs``:
    run files scored with both label sets by ``measure``. With
    ``keep_disagreements`` every pair graded differently is listed. ``prefer``
    names the source that wins where a file labels a pair twice (human, model).
    ``disagreements_file``: write those pairs there too (JSONL, atomically).
    """
    import numpy as np

    ref = reference if isinstance(reference, LabelTable) else read_labels(reference, prefer=prefer)
    cand = candidate if isinstance(candidate, LabelTable) else read_labels(candidate, prefer=prefer)
    joined = _join(ref, cand)
    if joined.empty:
        raise UsageError(_nothing_to_compare(ref, cand))
    joined, clipped = _clip(joined, max_grade)
    r = joined["grade_ref"].to_numpy(np.int64)
    c = joined["grade_cand"].to_numpy(np.int64)
    head = pair_stats(r, c)
    labels, matrix = _confusion(r, c)
    fields = [f for f in (GROUP_FIELDS if by is None else by) if f in joined.columns]
    if by is not None and len(fields) != len(by):
        missing = sorted(set(by) - set(fields))
        raise UsageError(f"no field {', '.join(missing)} in {ref.name}; use one the labels carry")
    keep = keep_disagreements or disagreements_file is not None
    result = AgreementResult(
        reference=_describe(ref),
        candidate=_describe(cand),
        **head.model_dump(),
        confusion={"labels": labels, "counts": matrix.tolist()},
        only_reference=len(ref) - len(joined),
        only_candidate=len(cand) - len(joined),
        binary=binary_stats(r, c, threshold),
        per_grade=_per_grade(labels, matrix),
        groups={f: _grouped(joined, f) for f in fields},
        ranking=rank_agreement(ref, cand, runs, measure) if runs else None,
        policy={
            "pairs": "labels both sets give (inner join on query_id, doc_id)",
            "threshold": threshold,
            "max_grade": max_grade,
            "clipped_labels": clipped,
            "kappa_weights": "by category position, as scikit-learn",
        },
        disagreements=_disagreements(joined) if keep else [],
    )
    if disagreements_file is not None:
        rows = result.disagreements
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        write_text_atomic(disagreements_file, text)
    return result


def _clip(joined: Any, max_grade: int | None) -> tuple[Any, int]:
    """Grades above ``max_grade`` set to it; how many labels changed."""
    if max_grade is None:
        return joined, 0
    clipped = int(
        (joined["grade_ref"] > max_grade).sum() + (joined["grade_cand"] > max_grade).sum()
    )
    if clipped:
        joined = joined.assign(
            grade_ref=joined["grade_ref"].clip(upper=max_grade),
            grade_cand=joined["grade_cand"].clip(upper=max_grade),
        )
    return joined, clipped


def rank_agreement(
    reference: LabelTable, candidate: LabelTable, runs: Sequence[str | Path], measure: str
) -> dict[str, Any]:
    """Score every run with both label sets; Kendall's tau of the two system orders."""
    from scipy.stats import kendalltau

    if len(runs) < 2:
        raise UsageError("give at least two runs with --runs to compare system rankings")
    m = parse_measure(measure)
    ref_set, cand_set = to_judgments(reference), to_judgments(candidate)
    systems = []
    for path in runs:
        run = load_run(path)
        a = score_run(run, ref_set, [m]).aggregate[m.name]
        b = score_run(run, cand_set, [m]).aggregate[m.name]
        systems.append({"run": str(path), "name": run.name, "reference": a, "candidate": b})
    ra = [s["reference"] or 0.0 for s in systems]
    ca = [s["candidate"] or 0.0 for s in systems]
    tau = kendalltau(ra, ca).statistic
    best_r = max(range(len(systems)), key=lambda i: ra[i])
    best_c = max(range(len(systems)), key=lambda i: ca[i])
    return {
        "measure": m.name,
        "systems": systems,
        "kendall_tau": None if tau != tau else float(tau),
        "best_reference": systems[best_r]["name"],
        "best_candidate": systems[best_c]["name"],
        "same_best": best_r == best_c,
    }


def _join(ref: LabelTable, cand: LabelTable) -> Any:
    right = cand.frame[["query_id", "doc_id", "grade", "source", "assessor"]]
    joined = ref.frame.merge(
        right, on=["query_id", "doc_id"], how="inner", suffixes=("_ref", "_cand")
    )
    if "reason" in cand.frame.columns and "reason" not in joined.columns:
        joined = joined.merge(
            cand.frame[["query_id", "doc_id", "reason"]], on=["query_id", "doc_id"], how="left"
        )
    return joined


def _confusion(r: Any, c: Any) -> tuple[list[int], Any]:

    return confusion(r, c)


def _per_grade(labels: list[int], matrix: Any) -> dict[str, dict[str, float | int | None]]:
    out: dict[str, dict[str, float | int | None]] = {}
    for i, grade in enumerate(labels):
        hit = int(matrix[i, i])
        predicted, actual = int(matrix[:, i].sum()), int(matrix[i, :].sum())
        out[str(grade)] = {
            "reference": actual,
            "candidate": predicted,
            "precision": hit / predicted if predicted else None,
            "recall": hit / actual if actual else None,
        }
    return out


def _grouped(joined: Any, field: str) -> dict[str, AgreementStats]:

    out: dict[str, AgreementStats] = {}
    groups = group_by_tags(enumerate(joined[field].tolist()))
    for tag in sorted(groups):
        sub = joined.iloc[groups[tag]]
        out[tag] = pair_stats(sub["grade_ref"].to_numpy(), sub["grade_cand"].to_numpy())
    return out


def _disagreements(joined: Any) -> list[dict[str, Any]]:
    differ = joined[joined["grade_ref"] != joined["grade_cand"]]
    rows = []
    for rec in differ.to_dict("records"):
        row = {
            "query_id": rec["query_id"],
            "doc_id": rec["doc_id"],
            "reference_grade": int(rec["grade_ref"]),
            "candidate_grade": int(rec["grade_cand"]),
        }
        if isinstance(rec.get("reason"), str) and rec["reason"]:
            row["reason"] = rec["reason"]
        rows.append(row)
    return rows


def _nothing_to_compare(ref: LabelTable, cand: LabelTable) -> str:
    """Why no figure can be computed, and what to do about it."""
    message = (
        f"nothing to compare: no pair has a label in both {ref.name} ({len(ref)} labels) "
        f"and {cand.name} ({len(cand)} labels)"
    )
    for table in (ref, cand):
        if table.pending:
            return message + (
                f"; {table.path or table.name} has {table.pending} review lines without a "
                "reviewer grade: fill reviewer_grade (and reason) on each line, then "
                "run assay judge agree again"
            )
    return message + "; give two label sets on the same queries and documents"


def _describe(table: LabelTable) -> dict[str, Any]:
    return {
        "name": table.name,
        "path": table.path,
        "kind": table.kind,
        "labels": len(table),
        "sources": table.sources(),
        "pending_review": table.pending,
    }
