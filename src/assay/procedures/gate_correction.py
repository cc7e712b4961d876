"""The gate's multiple-testing correction (``gate --correction``).

Without one (``none``, the default) each check is decided as
:mod:`assay.procedures.gating` says: the lower bound of its interval against
``-margin``. With one, every gated check (each metric on all queries, each
gated slice) gets a one-sided paired bootstrap p-value of "the drop is at least
the margin" (:func:`assay.stats.bootstrap.noninferiority_pvalues`), the
p-values are adjusted together (:mod:`assay.stats.corrections`) and a check
passes when its adjusted p-value is below ``alpha``: non-inferiority shown for
every check at once, not check by check.
"""

from __future__ import annotations

from typing import Any

from assay.procedures.gate_result import GateCheck
from assay.stats.bootstrap import noninferiority_pvalues
from assay.stats.corrections import LABELS, adjust


def correction_rule(correction: str, alpha: float, margin: float) -> str:
    """The corrected decision rule in words (appended to the gate's rule)."""

    return (
        f"; with the {LABELS[correction]} correction over the gated checks: pass when the "
        f"adjusted one-sided paired bootstrap p-value of a drop of at least {margin:.3f} "
        f"is below {alpha:g}"
    )


def correction_fields(result: Any, correction: str, stat: dict[str, Any]) -> dict[str, Any]:
    """The gate result's ``correction`` and its rule (nothing to change without one)."""
    if correction == "none":
        return {}
    rule = result.rule + correction_rule(correction, stat["alpha"], stat["margin"])
    return {"correction": correction, "rule": rule}


def corrected(checks: list[GateCheck], correction: str, stat: dict[str, Any]) -> list[GateCheck]:
    """``checks`` with p-values, adjusted p-values and decisions under ``correction``
    (as they are without one)."""
    import numpy as np

    gated = [i for i, c in enumerate(checks) if c.gated]
    if correction == "none" or not gated:
        return checks
    p = np.array(
        [
            noninferiority_pvalues(
                checks[i].diffs[np.newaxis, :],
                stat["margin"],
                n_resamples=stat["n_resamples"],
                seed=stat["seed"],
            )[0]
            for i in gated
        ]
    )
    adjusted = adjust(p, correction)
    out = list(checks)
    name = LABELS[correction]
    for i, raw, adj in zip(gated, p.tolist(), adjusted.tolist(), strict=True):
        passed = adj < stat["alpha"]
        evidence = out[i].message.split("; ", 1)[0].split(", ", 1)[0]
        verdict = "non-inferiority shown" if passed else "a drop beyond the margin is not ruled out"
        message = f"{evidence}; p {raw:.4f}, {name}-adjusted {adj:.4f}: {verdict}"
        out[i] = out[i].model_copy(
            update={"p_value": raw, "p_adjusted": adj, "passed": passed, "message": message}
        )
        out[i].diffs = checks[i].diffs
    return out
