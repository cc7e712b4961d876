"""Scoring policies, written once: their allowed values, what each means, and the check.

Two policies are chosen by the caller and change a score: ``missing`` (what a
judged query absent from the run scores) and ``ties`` (how tied scores are
ordered); every entry point checks them with :func:`check_policies`.

Beside them, :func:`scoring_policies` lists every rule in force on one
evaluation, from the facts the procedure records (the measures, the no-answer
queries, the failed calls, ...): one :class:`ScoringPolicy` each, marked when
it differs from trec_eval's default, with what trec_eval does instead. Results
carry that list (``policies``) and every report prints it; :func:`merge_policies`
joins the lists of the evaluations behind a comparison, a gate or a verify-suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from assay.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.procedures.sources import RunProvenance

MissingPolicy = Literal["zero", "skip"]
TiePolicy = Literal["score", "given"]

#: ``missing`` values and the sentence every report prints for each.
MISSING: dict[str, str] = {
    "zero": "judged queries missing from the run score 0 (trec_eval -c)",
    "skip": "judged queries missing from the run are skipped (trec_eval default)",
}
#: ``ties`` values and the sentence every report prints for each.
TIES: dict[str, str] = {
    "score": "tied scores ordered by doc id descending (trec_eval)",
    "given": "ties kept in the given order",
}
MISSING_POLICIES: tuple[str, ...] = tuple(MISSING)
TIE_POLICIES: tuple[str, ...] = tuple(TIES)

#: What trec_eval does instead of dropping documents that carry their query's id.
_TREC_IDENTICAL = (
    "trec_eval scores every retrieved document; BEIR's EvaluateRetrieval.evaluate drops "
    "these by default (ignore_identical_ids=True)"
)

#: What trec_eval does instead, for each ``missing`` and ``ties`` value that differs.
_TREC_MISSING = {"zero": "trec_eval's default skips them (it scores them 0 only with -c)"}
_TREC_TIES = {"given": "trec_eval orders tied scores by doc id descending, whatever the file order"}


class ScoringPolicy(BaseModel):
    """One rule that shapes the scores of a result, in words, compared with trec_eval."""

    name: str = Field(description="which rule: missing, ties, no_answer, relevance, gains, ...")
    text: str = Field(description="what assay did, in one short sentence")
    differs: bool = Field(False, description="true when trec_eval's default does otherwise")
    trec_eval: str | None = Field(None, description="what trec_eval does instead (when differs)")


def check_policies(missing: str | None = None, ties: str | None = None) -> None:
    """Raise :class:`UsageError` naming the parameter when a policy value is unknown."""
    for name, value, allowed in (("missing", missing, MISSING), ("ties", ties, TIES)):
        if value is not None and value not in allowed:
            raise UsageError(f"`{name}` must be one of {', '.join(allowed)}; got {value!r}", name)


def describe(missing: str, ties: str) -> str:
    """The two chosen policies in words: what ``missing`` and ``ties`` mean."""
    check_policies(missing, ties)
    return f"{MISSING[missing]}; {TIES[ties]}"


def _rule(name: str, text: str, trec_eval: str | None = None) -> ScoringPolicy:
    return ScoringPolicy(name=name, text=text, differs=trec_eval is not None, trec_eval=trec_eval)


def _n(number: int, noun: str) -> str:
    from assay.report.words import count  # the one plural rule of every message

    return count(number, noun)


def chosen_policies(missing: str, ties: str) -> list[ScoringPolicy]:
    """The ``missing`` and ``ties`` rules (what a result that records nothing else says)."""
    check_policies(missing, ties)
    return [
        _rule("missing", MISSING[missing], _TREC_MISSING.get(missing)),
        _rule("ties", TIES[ties], _TREC_TIES.get(ties)),
    ]


def scoring_policies(
    *,
    missing: str,
    ties: str,
    metrics: Sequence[str] = (),
    no_answer_queries: int = 0,
    ignored_queries: int = 0,
    failed_queries: int = 0,
    negative_grades: int = 0,
    prefer: str | None = None,
    synthetic_queries: int = 0,
    total_queries: int = 0,
    depth_warnings: Sequence[str] = (),
    system_depth: int | None = None,
    identical_ids_dropped: int | None = None,
) -> list[ScoringPolicy]:
    """Every rule in force on one evaluation, the chosen ones first.

    ``metrics`` are measure names (their relevance levels, gains and judged-only
    variants are read from them); the counts are those the result records:
    no-answer queries of the judgments, run queries not judged, failed system
    calls, judgments with a negative grade; ``prefer`` the label source that won
    where a pair had two; ``synthetic_queries`` of ``total_queries`` scored with
    people's; ``depth_warnings`` the cutoffs deeper than a run file;
    ``system_depth`` the ``k`` a live system was asked for;
    ``identical_ids_dropped`` the documents dropped because their id is their
    query's (``None``: ``ignore_identical_ids`` was off, as trec_eval).
    """
    rules = chosen_policies(missing, ties)
    if identical_ids_dropped is not None:
        rules.append(identical_ids_rule(identical_ids_dropped))
    rules += _judgment_rules(no_answer_queries, negative_grades, prefer)
    rules += _measure_rules(metrics)
    rules += _run_rules(missing, ignored_queries, failed_queries, depth_warnings, system_depth)
    if 0 < synthetic_queries < total_queries:
        synthetic = _n(synthetic_queries, "synthetic query")
        rules.append(
            _rule(
                "synthetic",
                f"{synthetic} (model-written) scored with people's and reported apart "
                "(group synthetic); the aggregate averages both, as trec_eval would",
            )
        )
    return rules


def identical_ids_rule(dropped: int) -> ScoringPolicy:
    """The ``ignore_identical_ids`` rule: what was dropped, and that trec_eval does not."""
    return _rule(
        "ignore_identical_ids",
        "a retrieved document whose id is its query's id is dropped before scoring and the "
        f"documents below it move up a rank, as BEIR ({_n(dropped, 'document')} dropped)",
        _TREC_IDENTICAL,
    )


def _judgment_rules(
    no_answer_queries: int, negative_grades: int, prefer: str | None
) -> list[ScoringPolicy]:
    rules = []
    if no_answer_queries:
        rules.append(
            _rule(
                "no_answer",
                f"{_n(no_answer_queries, 'no-answer query')} (NONE, "
                '"no_answer": true) left out of ranking scores and num_q, reported apart',
                "trec_eval has no no-answer mark: it scores a judged query without a relevant "
                "document (0 on most measures) and counts it",
            )
        )
    if negative_grades:
        rules.append(
            _rule(
                "negative_grades",
                f"{_n(negative_grades, 'judgment')} with a negative grade: non-relevant and "
                "not counted as judged, gain 0 (as trec_eval)",
            )
        )
    if prefer is not None:
        rules.append(
            _rule(
                "prefer",
                f"pairs labelled by both a person and a model keep the {prefer} label "
                f"(--prefer {prefer})",
                "trec_eval reads one grade per pair and knows no label sources",
            )
        )
    return rules


def _measure_rules(metrics: Sequence[str]) -> list[ScoringPolicy]:
    """Relevance levels, nDCG gains, judged-only variants and summed counts of ``metrics``."""
    from assay.metrics.measures import parse_measure

    measures = []
    for name in metrics:
        try:
            measures.append(parse_measure(name))
        except UsageError:  # a result file's measure this assay does not know: nothing to say
            continue
    rules = [_rule("relevance", "a document is relevant when its grade is >= 1 (trec_eval -l1)")]
    levels = sorted({m.rel for m in measures if m.rel != 1})
    for level in levels:
        names = ", ".join(m.name for m in measures if m.rel == level)
        rules.append(
            _rule(
                "relevance",
                f"{names}: relevant means grade >= {level}",
                f"trec_eval's default counts grade >= 1 (it counts >= {level} with -l{level})",
            )
        )
    gained = [m for m in measures if "gain" in _family_params(m)]
    if any(m.gain == "linear" and not m.param("gains") for m in gained):
        rules.append(_rule("gains", "nDCG gains are the grades (as trec_eval)"))
    for m in gained:
        if m.gain == "exp":
            rules.append(
                _rule(
                    "gains",
                    f"{m.name}: gain 2^grade - 1",
                    "trec_eval's ndcg gains are the grades",
                )
            )
        elif m.param("gains"):
            rules.append(
                _rule(
                    "gains",
                    f"{m.name}: custom gains {m.param('gains')}",
                    "trec_eval's default gains are the grades (ndcg.1=...,2=... sets others)",
                )
            )
    condensed = [m.name for m in measures if m.judged_only]
    if condensed:
        rules.append(
            _rule(
                "judged_only",
                f"{', '.join(condensed)}: unjudged documents removed before scoring",
                "trec_eval keeps unjudged documents (non-relevant) unless -J",
            )
        )
    counts = [m.name for m in measures if is_count(m.name)]
    if counts:
        rules.append(_rule("counts", f"{', '.join(counts)}: summed over queries (as trec_eval)"))
    return rules


@lru_cache(maxsize=1024)
def is_count(metric: str | None) -> bool:
    """True when ``metric`` names a count (registry aggregation ``sum``: ``NumRet``...).

    A count sums over queries on every summary line, as trec_eval's does, and
    prints as a whole number; an unknown name (an older result's) is no count.
    """
    if not metric:
        return False
    from assay.metrics.measures import parse_measure

    try:
        return parse_measure(metric).aggregate == "sum"
    except UsageError:
        return False


def _family_params(measure: object) -> dict[str, str | None]:
    from assay.metrics.registry import REGISTRY

    return REGISTRY[measure.family].params  # type: ignore[attr-defined]


def _run_rules(
    missing: str,
    ignored_queries: int,
    failed_queries: int,
    depth_warnings: Sequence[str],
    system_depth: int | None,
) -> list[ScoringPolicy]:
    rules = []
    if ignored_queries:
        rules.append(
            _rule(
                "not_judged",
                f"{_n(ignored_queries, 'run query')} not judged (or no-answer) "
                "ignored, as trec_eval ignores queries without judgments",
            )
        )
    if failed_queries:
        rules.append(
            _rule(
                "failed",
                f"{_n(failed_queries, 'failed system call')} not scored, reported apart",
                "trec_eval sees only the run: "
                + ("-c scores such a query 0" if missing == "zero" else "it skips such a query"),
            )
        )
    if system_depth is not None:
        rules.append(
            _rule("depth", f"the system was asked for its top {system_depth} documents per query")
        )
    rules += [_rule("depth", w + " (as trec_eval)") for w in depth_warnings]
    return rules


def run_policies(
    judgments: JudgmentSet,
    metrics: Sequence[object],
    *,
    missing: str,
    ties: str,
    info: RunProvenance,
    ignored_queries: int = 0,
    depth_warnings: Sequence[str] = (),
    identical_ids_dropped: int | None = None,
) -> list[ScoringPolicy]:
    """:func:`scoring_policies` of one run scored on ``judgments`` (what ``score_run`` records).

    ``info`` is the run's provenance (failed calls; ``k`` of a live system);
    ``judgments.prefer`` names the label source that won, when a label file
    had two labels for a pair; ``identical_ids_dropped`` as in
    :func:`scoring_policies`.
    """
    qrels = judgments.qrels
    negative = int((qrels["grade"] < 0).sum()) if len(qrels) else 0
    return scoring_policies(
        missing=missing,
        ties=ties,
        metrics=[str(m) for m in metrics],
        no_answer_queries=len(judgments.no_answer_ids),
        ignored_queries=ignored_queries,
        failed_queries=len(info.failed_query_ids),
        negative_grades=negative,
        prefer=judgments.prefer,
        synthetic_queries=len(judgments.synthetic_ids),
        total_queries=len(judgments),
        depth_warnings=depth_warnings,
        system_depth=info.k if info.queries_asked is not None else None,
        identical_ids_dropped=identical_ids_dropped,
    ) + _system_rules(info)


def _system_rules(info: RunProvenance) -> list[ScoringPolicy]:
    """How a live vector system embeds: model, dimensions, prefixes, long texts."""
    system = info.system if isinstance(info.system, dict) else {}
    if system.get("type") != "vector":
        return []
    from assay.systems.vector import policy_text

    text = policy_text(system)
    return [_rule("embedding", text)] if text else []


def mean_decided_policies(
    lists: Sequence[Sequence[ScoringPolicy]],
    metrics: Sequence[str],
    decided: str = "gated",
    labels: Sequence[str] | None = None,
) -> list[ScoringPolicy]:
    """The rules of the evaluations behind a gate or a verify-suite, merged (see
    :func:`merge_policies`).

    Those decide on per-query means, so each count among ``metrics`` says so
    (``decided``: "gated" or "tested") instead of saying it sums.
    """
    kept = [[r for r in rules if r.name != "counts"] for rules in lists]
    margin = " (the margin is per query)" if decided == "gated" else ""
    means = [
        _rule(
            "counts",
            f"{m}: {decided} on its mean per query{margin}",
            "trec_eval's summary line sums a count over queries",
        )
        for m in metrics
        if is_count(m)
    ]
    return [*merge_policies(kept, labels), *means]


def merge_policies(
    lists: Sequence[Sequence[ScoringPolicy]], labels: Sequence[str] | None = None
) -> list[ScoringPolicy]:
    """The rules of several evaluations in one list, in order, each sentence once.

    With ``labels`` (one per list: the run names), a rule that not every list
    holds says whose it is (``"bm25: 3 run queries not judged ..."``).
    """
    texts = [{r.text for r in rules} for rules in lists]
    seen: set[str] = set()
    out: list[ScoringPolicy] = []
    for i, rules in enumerate(lists):
        for rule in rules:
            shared = all(rule.text in t for t in texts)
            if labels is not None and not shared:
                rule = rule.model_copy(update={"text": f"{labels[i]}: {rule.text}"})
            if rule.text not in seen:
                seen.add(rule.text)
                out.append(rule)
    return out
