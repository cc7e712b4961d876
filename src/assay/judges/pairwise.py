"""Pairwise judges: every pair asked in both orders; position bias measured, not hidden.

A pair holds two answers, ``a`` and ``b``. Each model is asked twice: with
``a`` in the first position and with ``b`` there. Its verdict on the pair is
the answer both orders chose; when the two orders disagree (one of them a
``tie``, or each picking another answer) the pair is a **tie**. A pair whose
two verdicts name the *same position* (first both times, or second both
times) follows the position, not the answers: the model's **position bias**
is the share of its pairs, asked in both orders with both answers scored,
that do so. A judge that always prefers the first answer has a position bias
of 1.0 and every pair a tie.

A jury's verdict on a pair is the majority of its models' verdicts (no
majority: a tie); its agreement is Krippendorff's alpha (nominal) between the
models' verdicts. People's ``label`` on a pair, where given, is compared with
the (jury) verdict by :func:`assay.judges.stats.pair_stats` (verdicts coded
a = 0, tie = 1, b = 2).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from assay.judges.grading import GradingRun, Item
from assay.judges.panel import JudgeRuns, human_agreement, jury_alpha, majority
from assay.judges.spec import JudgeSpec
from assay.judges.stats import AgreementStats

#: The code of each verdict in agreement statistics (the tie between the two answers).
VERDICT_CODES = {"a": 0, "tie": 1, "b": 2}


class ModelPairStats(BaseModel):
    """One model's pairwise behaviour over every pair."""

    model: str = Field(description="The [models.NAME].")
    pairs: int = Field(description="Pairs with both orders scored.")
    consistent: int = Field(description="Pairs whose two orders chose the same answer.")
    follows_position: int = Field(description="Pairs whose two orders chose the same position.")
    position_bias: float | None = Field(
        description="follows_position / pairs: 1.0 for a judge that always picks one position."
    )
    first_position_rate: float | None = Field(
        description="Share of its non-tie answers that chose the first position (0.5 unbiased)."
    )


class PairwiseJudgeResult(JudgeRuns):
    """What ``assay judge pairwise`` concluded: verdicts, position bias, agreement."""

    schema_version: str = "1"
    kind: Literal["pairwise_judge"] = "pairwise_judge"
    pairs: list[dict[str, Any]] = Field(
        description="Per pair: id, the (jury) verdict (a, b, tie or None when unscored), each "
        "model's verdict and its answers in both orders."
    )
    models: list[ModelPairStats] = Field(description="Per model: consistency and position bias.")
    position_bias: float | None = Field(
        description="Share of pairs following the position, over every model's pairs."
    )
    wins: dict[str, int] = Field(description="Pairs won by a, by b, and tied.")
    jury_alpha: dict[str, float | None] | None = Field(
        description="Krippendorff's alpha between the models' verdicts (None for one model)."
    )
    human: AgreementStats | None = Field(
        description="Agreement of the (jury) verdict with people's labels, where pairs have them."
    )
    unscored: list[dict[str, Any]] = Field(
        default_factory=list, description="Orders a model could not score, with the reasons."
    )


def pair_items(raw: list[dict[str, Any]]) -> list[Item]:
    """Two items per pair: ``a`` first, then ``b`` first (ids ``ID (a first)``, ``(b first)``)."""
    out = []
    for obj in raw:
        fields = {k: v for k, v in obj.items() if isinstance(v, str)}
        out.append(
            Item(f"{obj['id']} (a first)", {**fields, "first": obj["a"], "second": obj["b"]})
        )
        out.append(
            Item(f"{obj['id']} (b first)", {**fields, "first": obj["b"], "second": obj["a"]})
        )
    return out


def _chosen(position: str | None, a_first: bool) -> str | None:
    """The answer a position names (``a``/``b``), ``tie``, or ``None`` when unscored."""
    if position is None or position == "tie":
        return position
    return "a" if (position == "first") == a_first else "b"


def model_verdict(a_first: str | None, b_first: str | None) -> tuple[str | None, bool | None]:
    """``(verdict, follows_position)`` of one model on one pair from its two answers
    (positions ``first``/``second``/``tie``; ``None`` unscored)."""
    if a_first is None or b_first is None:
        return None, None
    x, y = _chosen(a_first, True), _chosen(b_first, False)
    follows = a_first == b_first and a_first != "tie"
    return (x if x == y else "tie"), follows


def _winner(grade: Any) -> str | None:
    """The position one order chose: with ``--samples``, the majority of its samples, and
    ``tie`` when there is none (not the grading engine's lowest value: that is ``first``)."""
    if grade.verdict is None:
        return None
    if grade.samples:
        return majority(grade.samples, tie="tie")
    return grade.verdict["winner"]


def _model_stats(name: str, rows: list[tuple[str | None, str | None]]) -> ModelPairStats:
    both = [(x, y) for x, y in rows if x is not None and y is not None]
    decided = [v for x, y in both for v in (x, y) if v != "tie"]
    follows = sum(model_verdict(x, y)[1] for x, y in both)
    consistent = sum(model_verdict(x, y)[0] != "tie" for x, y in both)
    return ModelPairStats(
        model=name,
        pairs=len(both),
        consistent=consistent,
        follows_position=follows,
        position_bias=follows / len(both) if both else None,
        first_position_rate=decided.count("first") / len(decided) if decided else None,
    )


def pairwise_result(
    spec: JudgeSpec, raw: list[dict[str, Any]], runs: list[GradingRun]
) -> PairwiseJudgeResult:
    """Verdicts per pair and model, the jury's verdict, position bias, agreement."""
    names = [r.model.get("name", "?") for r in runs]
    answers = [{g.id: _winner(g) for g in r.items} for r in runs]
    pairs: list[dict[str, Any]] = []
    per_model_rows: list[list[tuple[str | None, str | None]]] = [[] for _ in runs]
    for obj in raw:
        shown: dict[str, Any] = {}
        votes = []
        for m, (name, got) in enumerate(zip(names, answers, strict=True)):
            x, y = got.get(f"{obj['id']} (a first)"), got.get(f"{obj['id']} (b first)")
            per_model_rows[m].append((x, y))
            verdict, follows = model_verdict(x, y)
            shown[name] = {
                "a_first": x,
                "b_first": y,
                "verdict": verdict,
                "follows_position": follows,
            }
            if verdict is not None:
                votes.append(verdict)
        jury = majority(votes, tie="tie") if votes else None
        pairs.append({"id": obj["id"], "verdict": jury, "label": obj.get("label"), "models": shown})
    stats = [_model_stats(n, rows) for n, rows in zip(names, per_model_rows, strict=True)]
    total = sum(s.pairs for s in stats)
    columns = [[_code(p["models"][n]["verdict"]) for p in pairs] for n in names]
    people = [(VERDICT_CODES[p["label"]], VERDICT_CODES[p["verdict"]])
              for p in pairs if p["label"] is not None and p["verdict"] is not None]  # fmt: skip
    unscored = [{**u, "model": r.model.get("name")} for r in runs for u in r.unscored_items()]
    return PairwiseJudgeResult(
        judge=spec.shown(),
        runs=runs,
        pairs=pairs,
        models=stats,
        position_bias=sum(s.follows_position for s in stats) / total if total else None,
        wins={v: sum(p["verdict"] == v for p in pairs) for v in ("a", "b", "tie")},
        jury_alpha=_nominal(jury_alpha(columns)),
        human=human_agreement(people),
        unscored=unscored,
    )


def _code(verdict: str | None) -> float | None:
    return None if verdict is None else float(VERDICT_CODES[verdict])


def _nominal(alphas: dict[str, float | None] | None) -> dict[str, float | None] | None:
    """Verdicts are categories: only the nominal alpha means something."""
    return None if alphas is None else {"nominal": alphas["nominal"]}
