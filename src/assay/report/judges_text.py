"""Plain-text renderings of judge results (agreement, grading runs, calibration).

Renderers only read the result models of :mod:`assay.judges`; they decide nothing.
"""

from __future__ import annotations

from typing import Any


def _f(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_agreement(result: Any) -> str:
    """An :class:`~assay.procedures.agreement.AgreementResult` as text."""
    ref, cand = result.reference, result.candidate
    lines = [
        f"reference: {ref['name']} ({ref['labels']} labels; sources {_sources(ref)})",
        f"candidate: {cand['name']} ({cand['labels']} labels; sources {_sources(cand)})",
        f"pairs in common: {result.n}  (only in reference {result.only_reference}, "
        f"only in candidate {result.only_candidate})",
    ]
    if ref.get("pending_review") or cand.get("pending_review"):
        pending = ref["pending_review"] + cand["pending_review"]
        lines.append(f"review lines without a reviewer grade: {pending}")
    lines += [
        f"accuracy (exact match):      {_f(result.accuracy)}",
        f"Cohen's kappa:               {_f(result.cohen_kappa)}",
        f"  linear weights:            {_f(result.weighted_kappa['linear'])}",
        f"  quadratic weights:         {_f(result.weighted_kappa['quadratic'])}",
        f"Krippendorff's alpha nominal {_f(result.krippendorff_alpha['nominal'])}",
        f"                     ordinal {_f(result.krippendorff_alpha['ordinal'])}",
    ]
    b = result.binary
    lines.append(
        f"binary (grade >= {b['threshold']}): accuracy {_f(b['accuracy'])}, "
        f"kappa {_f(b['cohen_kappa'])}, alpha {_f(b['krippendorff_alpha'])}, "
        f"relevant {b['reference_relevant']} vs {b['candidate_relevant']}"
    )
    lines += ["", "confusion (rows: reference grade, columns: candidate grade)"]
    labels = result.confusion["labels"]
    width = max([6, *(len(str(x)) + 1 for row in result.confusion["counts"] for x in row)])
    lines.append(" " * 6 + "".join(f"{g:>{width}}" for g in labels))
    for g, row in zip(labels, result.confusion["counts"], strict=True):
        lines.append(f"{g:>6}" + "".join(f"{x:>{width}}" for x in row))
    lines += ["", "per grade: precision / recall of the candidate"]
    for g, s in result.per_grade.items():
        lines.append(
            f"  {g}: {_f(s['precision'], 3)} / {_f(s['recall'], 3)} "
            f"(reference {s['reference']}, candidate {s['candidate']})"
        )
    for field, groups in result.groups.items():
        lines += ["", f"by {field}: n, accuracy, kappa, quadratic kappa, ordinal alpha"]
        for value, s in groups.items():
            lines.append(
                f"  {value}: {s.n}, {_f(s.accuracy, 3)}, {_f(s.cohen_kappa, 3)}, "
                f"{_f(s.weighted_kappa['quadratic'], 3)}, {_f(s.krippendorff_alpha['ordinal'], 3)}"
            )
    if result.ranking:
        rk = result.ranking
        lines += ["", f"system ranking by {rk['measure']}: reference vs candidate labels"]
        for s in rk["systems"]:
            lines.append(f"  {s['name']}: {_f(s['reference'])} vs {_f(s['candidate'])}")
        lines.append(
            f"  Kendall's tau {_f(rk['kendall_tau'], 3)}; best system "
            f"{'the same' if rk['same_best'] else 'differs'} "
            f"({rk['best_reference']} vs {rk['best_candidate']})"
        )
    policy = result.policy
    if policy.get("max_grade") is not None:
        clipped = policy["clipped_labels"]
        lines.append(f"\npolicy: grades above {policy['max_grade']} clipped ({clipped} labels)")
    return "\n".join(lines)


def _sources(side: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in side["sources"].items()) or "none"


def render_grading(run: Any, wrote: str | None = None) -> str:
    """A :class:`~assay.judges.grading.GradingRun` as text: counts, cost, unscored items."""
    s = run.summary()
    u = run.usage
    lines = [
        f"grader {run.grader} ({run.rubric_version}, prompt {run.prompt_hash}) "
        f"with model {run.model['model']} [{run.model['name']}]",
        f"items: {s['items']}, scored {s['scored']}, unscored {s['unscored']}, "
        f"not graded {s['not_graded']}",
        f"calls: {u.calls} ({u.cached} from the cache, {u.errors} errors); tokens in "
        f"{u.input_tokens}, out {u.output_tokens}; latency {u.latency_seconds:.2f} s in all",
        f"cost: ${u.cost:.6f} for these answers, ${u.spent:.6f} spent by this run",
    ]
    if run.samples > 1:
        lines.append(f"samples per item: {run.samples}; flip rate {_f(s['flip_rate'], 3)}")
    if run.stopped_at_budget:
        lines.append(
            f"stopped before passing --max-cost ${run.max_cost}: graded "
            f"{s['items'] - s['not_graded']} of {s['items']} items, spent ${u.spent:.6f}"
        )
    unscored = run.unscored_items()
    if unscored:
        lines.append("unscored (not folded into any grade):")
        for row in unscored[:50]:
            lines.append(f"  {row['id']}: {'; '.join(row['reasons'])}")
        if len(unscored) > 50:
            lines.append(f"  ... and {len(unscored) - 50} more (see --format json)")
    if wrote:
        lines.append(f"wrote {wrote}")
    return "\n".join(lines)


def render_judge_job(result: Any) -> str:
    """A :class:`~assay.judges.relevance.JudgeJob` as text: its grading run and labels file."""
    return render_grading(result.run, result.output)


def render_claims(result: Any) -> str:
    """A :class:`~assay.judges.cases.ClaimsResult` as text: the grading run, the support
    judgments the model filled and those left for people."""
    lines = [render_grading(result.run, result.output)]
    lines.append(f"support judgments filled by the model: {result.filled}")
    lines.extend(f"  left for people: {line}" for line in result.left_for_people)
    return "\n".join(lines)


def render_calibration(result: Any) -> str:
    """A :class:`~assay.procedures.calibration.CalibrationResult` as text."""
    q = result.queries
    level = round((1 - result.alpha) * 100)
    lines = [
        f"run {result.run}: {q['model']} queries with model labels "
        f"({_counts(result.model_labels)}), {q['human']} of them with people's labels "
        f"({_counts(result.human_labels)})",
        f"{level}% intervals; PPI++ uses the model on {q['model_only']} more queries",
        f"{'metric':<12}{'model only':>12}{'people only':>28}{'PPI++':>28}"
        f"{'lambda':>8}{'width':>8}",
    ]
    for m in result.metrics:
        h, p = m.human_only, m.ppi
        lines.append(
            f"{m.metric:<12}{m.model_only:>12.4f}"
            f"{_iv(h):>28}{_iv(p):>28}{_f(p['lambda'], 2):>8}{_f(m.width_ratio, 2):>8}"
        )
    lines.append("width: PPI++ interval width / people-only width (below 1: the model labels help)")
    return "\n".join(lines)


def _iv(d: dict[str, Any]) -> str:
    return f"{d['estimate']:.4f} [{d['low']:.4f}, {d['high']:.4f}]"


def _counts(side: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in side["sources"].items())


def render_answer_grades(result: Any) -> str:
    """An :class:`~assay.judges.cases.AnswersGradeResult` as text."""
    lines = [
        render_grading(result.run),
        f"rates over scored answers (graded by {result.graded_by}):",
    ]
    names = {
        "right_series": "right series",
        "right_period": "right period",
        "caveats_stated": "caveats stated",
        "hallucination_rate": "hallucination rate (model-graded)",
    }
    for key, label in names.items():
        lines.append(f"  {label}: {_f(result.rates.get(key), 3)}")
    return "\n".join(lines)


def export_lines(summary: Any) -> list[str]:
    """What ``judge export`` wrote, line by line: a review's item count, or the judgment
    set's version, pairs by rule, ties left out and no-answer queries."""
    if not hasattr(summary, "rules"):  # a review export
        return [f"review: {summary.items} reviewed items"]
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(summary.rules.items()))
    lines = [
        f"judgments version {summary.version}: "
        f"{summary.pairs} pairs over {summary.queries} queries; pairs by rule: {rules}"
    ]
    if summary.ties:
        lines.append(
            f"note: {len(summary.ties)} tied pairs left out until adjudicated, e.g. "
            f"{summary.ties[0][0]}/{summary.ties[0][1]}"
        )
    if summary.kept_no_answer:
        lines.append(
            f"note: {len(summary.kept_no_answer)} no-answer queries of --base kept no-answer "
            f"(e.g. {summary.kept_no_answer[0]}): the people's grades >= 1 for them are kept "
            "in assessments only; remove the no-answer mark in the base to make one answerable"
        )
    if summary.no_answer_queries:
        lines.append(
            f"note: {len(summary.no_answer_queries)} queries have no grade >= 1 and are written "
            "with no_answer=true (ranking metrics skip them)"
        )
    return lines
