"""The scoring rules in force on one evaluation, in the words every report prints.

:func:`scoring_policies` lists every rule from the facts a procedure records
(the measures, the no-answer queries, the failed calls, ...): one
:class:`~assay.core.policies.ScoringPolicy` each, marked when it differs from
trec_eval's default, with what trec_eval does instead. Results carry that list
(``policies``); :func:`mean_decided_policies` adapts the lists behind a gate
or a verify-suite. The policy values and their check live below, in
:mod:`assay.core.policies`.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.core.errors import UsageError
from assay.core.policies import ScoringPolicy, chosen_policies, merge_policies
from assay.core.policies import policy_rule as _rule
from assay.core.words import count
from assay.metrics.measures import is_count, parse_measure
from assay.metrics.registry import REGISTRY

#: What trec_eval does instead of dropping documents that carry their query's id.
_TREC_IDENTICAL = (
    "trec_eval scores every retrieved document; BEIR's EvaluateRetrieval.evaluate drops "
    "these by default (ignore_identical_ids=True)"
)


def _n(number: int, noun: str) -> str:
    return count(number, noun)


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


def _family_params(measure: object) -> dict[str, str | None]:

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
