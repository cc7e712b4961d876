"""Plain-text renderings of declared-judge results (``judge rubric``, ``judge pairwise``).

They only read :class:`~assay.judges.panel.RubricJudgeResult` and
:class:`~assay.judges.pairwise.PairwiseJudgeResult`; they decide nothing.
"""

from __future__ import annotations

from typing import Any

from assay.report.judges_text import render_grading


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _alpha(alphas: dict[str, float | None] | None) -> str:
    if alphas is None:
        return "one model"
    return ", ".join(f"{k} {_f(v)}" for k, v in alphas.items())


def _human(stats: Any) -> str:
    if stats is None:
        return "no people's labels"
    return (
        f"{stats.n} labelled: accuracy {_f(stats.accuracy)}, kappa {_f(stats.cohen_kappa)}, "
        f"quadratic kappa {_f(stats.weighted_kappa['quadratic'])}, "
        f"ordinal alpha {_f(stats.krippendorff_alpha['ordinal'])}"
    )


def _header(result: Any) -> list[str]:
    j = result.judge
    jury = f"jury of {len(j['models'])} ({j['aggregate']})" if len(j["models"]) > 1 else "one model"
    lines = [f"{j['kind']} judge {j['name']} ({j['file']}): {', '.join(j['models'])}, {jury}"]
    for run in result.runs:
        lines += ["", render_grading(run)]
    return [*lines, ""]


def render_rubric(result: Any) -> str:
    """A rubric judge's result: per criterion scores, distribution and agreement."""
    lines = _header(result)
    for c in result.criteria:
        spread = ", ".join(f"{k}: {v}" for k, v in c.distribution.items())
        lines += [
            f"criterion {c.name} (scale {c.scale[0]}-{c.scale[1]}): {c.scored} scored, "
            f"mean {_f(c.mean)}",
            f"  distribution: {spread}",
            f"  jury agreement (Krippendorff's alpha): {_alpha(c.jury_alpha)}",
            f"  agreement with people: {_human(c.human)}",
        ]
    return "\n".join(lines)


def render_pairwise(result: Any) -> str:
    """A pairwise judge's result: wins, position bias per model, agreement."""
    w = result.wins
    lines = _header(result)
    lines += [
        f"pairs: {len(result.pairs)}; a wins {w['a']}, b wins {w['b']}, ties {w['tie']} "
        "(each pair asked in both orders; orders that disagree make a tie)",
        f"position bias (share of pairs following the position): {_f(result.position_bias)}",
    ]
    for m in result.models:
        lines.append(
            f"  {m.model}: {m.pairs} pairs in both orders, {m.consistent} consistent, "
            f"{m.follows_position} follow the position (bias {_f(m.position_bias)}); "
            f"first position chosen {_f(m.first_position_rate)} of decided answers"
        )
    lines += [
        f"jury agreement (Krippendorff's alpha): {_alpha(result.jury_alpha)}",
        f"agreement with people (a=0, tie=1, b=2): {_human(result.human)}",
    ]
    return "\n".join(lines)


def render_declared(result: Any) -> str:
    """Either declared-judge result as text."""
    return render_rubric(result) if result.kind == "rubric_judge" else render_pairwise(result)
