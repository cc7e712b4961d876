"""Cells, variant summaries and pairwise comparisons from the attempts of a matrix run."""

from __future__ import annotations

from collections import Counter
from typing import Any

from assay.core.environment import environment
from assay.matrix.assertions import ASSERTIONS
from assay.matrix.config import MatrixConfig, variant_name
from assay.matrix.reliability import default_ks, reliability
from assay.matrix.result import (
    Attempt,
    Cell,
    MatrixResult,
    PairComparison,
    VariantSummary,
    pairing_policy,
)
from assay.providers.accounting import Budget, CallRecord, Usage
from assay.stats.corrections import adjust
from assay.stats.significance import mcnemar_exact
from assay.stats.verdict import verdict


def make_cell(
    variant: str, prompt: str, provider: str, case_id: str, kind: str, attempts: list[Attempt]
) -> Cell:
    """One cell's pass counts: pass rate, pass^N (all repeats pass), flaky (mixed)."""
    n = len(attempts)
    passes = sum(a.passed for a in attempts)
    return Cell(
        variant=variant,
        prompt=prompt,
        provider=provider,
        case_id=case_id,
        kind=kind,
        attempts=attempts,
        n=n,
        passes=passes,
        pass_rate=passes / n if n else None,
        pass_all=n > 0 and passes == n,
        flaky=0 < passes < n,
    )


def summarise(
    variant: str, prompt: str, provider: str, kind: str, cells: list[Cell]
) -> VariantSummary:
    """A variant's pass rate, pass^N rate, flaky cells, failures per assertion and usage."""
    attempts = [a for c in cells for a in c.attempts]
    failures: Counter[str] = Counter()
    for a in attempts:
        for name in ASSERTIONS:
            if a.assertions.get(name) is False:
                failures[name] += 1
    records = [
        CallRecord(a.input_tokens, a.output_tokens, a.latency, a.cost, a.cached, error=a.error)
        for a in attempts
    ]
    latencies = [a.latency for a in attempts if a.error is None]
    scored = [c for c in cells if c.n]
    return VariantSummary(
        variant=variant,
        prompt=prompt,
        provider=provider,
        provider_kind=kind,
        cases=len(cells),
        attempts=len(attempts),
        pass_rate=sum(a.passed for a in attempts) / len(attempts) if attempts else None,
        pass_all_rate=sum(c.pass_all for c in scored) / len(scored) if scored else None,
        flaky_cells=sum(c.flaky for c in cells),
        failures=dict(failures),
        usage=Usage.total(records),
        latency_mean=sum(latencies) / len(latencies) if latencies else None,
        latency_max=max(latencies) if latencies else None,
    )


def compare_variants(
    cells: list[Cell], variants: list[str], baseline: str, alpha: float, correction: str = "holm"
) -> list[PairComparison]:
    """Every variant against ``baseline``: exact McNemar on pass^N per case, adjusted by
    ``correction`` (:mod:`assay.stats.corrections`)."""

    by = {(c.variant, c.case_id): c for c in cells}
    case_ids = sorted({c.case_id for c in cells})
    rows: list[dict[str, Any]] = []
    for cand in variants:
        if cand == baseline:
            continue
        pairs = [
            (by[baseline, cid].pass_all, by[cand, cid].pass_all)
            for cid in case_ids
            if by[baseline, cid].n and by[cand, cid].n
        ]
        b_only = sum(b and not c for b, c in pairs)
        c_only = sum(c and not b for b, c in pairs)
        n = len(pairs)
        rows.append(
            {
                "baseline": baseline,
                "candidate": cand,
                "n": n,
                "both_pass": sum(b and c for b, c in pairs),
                "baseline_only": b_only,
                "candidate_only": c_only,
                "neither": sum(not b and not c for b, c in pairs),
                "delta": (c_only - b_only) / n if n else 0.0,
                "p_value": mcnemar_exact(b_only, c_only),
            }
        )
    adjusted = adjust([r["p_value"] for r in rows], correction) if rows else []
    out = []
    for row, p_adj in zip(rows, adjusted, strict=True):
        decided = verdict(row["delta"], float(p_adj), alpha)
        out.append(PairComparison(**row, p_adjusted=float(p_adj), verdict=decided))
    return out


def build_result(
    config: MatrixConfig,
    slots: dict[tuple[int, int, int, int], Attempt],
    budget: Budget,
    judge_usage: Usage | None = None,
) -> MatrixResult:
    """The :class:`MatrixResult` of a run's attempts (missing repeats: budget stopped them)."""

    cells: list[Cell] = []
    summaries: list[VariantSummary] = []
    for pi, prompt in enumerate(config.prompts):
        for mi, provider in enumerate(config.providers):
            name = variant_name(prompt.name, provider.name)
            vcells = []
            for ci, case in enumerate(config.cases):
                attempts = [
                    slots[pi, mi, ci, r] for r in range(config.repeats) if (pi, mi, ci, r) in slots
                ]
                vcells.append(
                    make_cell(name, prompt.name, provider.name, case.case_id, case.kind, attempts)
                )
            cells.extend(vcells)
            summaries.append(summarise(name, prompt.name, provider.name, provider.kind, vcells))
    variants = config.variants()
    baseline = config.baseline or variants[0]
    usage = Usage.total(  # in grid order, not the order calls ended: the same float sums
        CallRecord(a.input_tokens, a.output_tokens, a.latency, a.cost, a.cached, error=a.error)
        for _, a in sorted(slots.items())
    )
    aggregate = {
        f"pass_rate {v.variant}": v.pass_rate for v in summaries if v.pass_rate is not None
    }
    return MatrixResult(
        name=config.name,
        config_path=config.path,
        config_hash=config.config_hash,
        cases_path=config.cases_path,
        cases_version=config.cases_version,
        case_ids=[c.case_id for c in config.cases],
        case_kinds={c.case_id: c.kind for c in config.cases},
        prompts=[{"name": p.name, "hash": p.hash, "path": p.path} for p in config.prompts],
        providers=[p.shown() for p in config.providers],
        judge=None if config.judge is None else config.judge.shown(),
        repeats=config.repeats,
        assertions=list(config.assertions or ASSERTIONS),
        baseline=baseline,
        alpha=config.alpha,
        correction=config.correction,
        policy=pairing_policy(config.correction),
        cells=cells,
        variants=summaries,
        comparisons=compare_variants(cells, variants, baseline, config.alpha, config.correction),
        usage=usage,
        judge_usage=judge_usage,
        max_cost=config.max_cost,
        stopped_at_budget=budget.exhausted,
        aggregate=aggregate,
        environment=environment(config.base_dir),
        reliability=reliability(cells, variants, config.pass_k or default_ks(config.repeats)),
    )
