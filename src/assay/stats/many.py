"""Several baselines, or all pairs: one comparison per baseline, merged into one family.

``compare(results, baseline=["a", "b"])`` compares every other system with
``a``, then with ``b`` (the pair ``a``-``b`` once); ``all_pairs=True`` compares
every pair of systems once (the earlier system as the baseline). Each pair's
rows carry their ``baseline``; the p-values of every row of every pair are
adjusted together (one family, the result's correction; the slices another),
so the family grows with the pairs. A single baseline never comes here: its
result is the plain comparison's, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.stats.corrections import adjust, check_correction
from assay.stats.verdict import verdict

if TYPE_CHECKING:  # pragma: no cover
    from assay.results.models import EvaluationResult
    from assay.stats.models import ComparisonResult


def unique_names(names: Sequence[str]) -> list[str]:
    """Make names unique by suffixing repeats with ``#2``, ``#3``... (first kept)."""
    seen: dict[str, int] = {}
    taken = set(names)
    out = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count == 1:
            out.append(name)
            continue
        candidate = f"{name}#{count}"
        while candidate in taken:
            count += 1
            candidate = f"{name}#{count}"
        seen[name] = count
        taken.add(candidate)
        out.append(candidate)
    return out


def baseline_index(baseline: str | int, names: list[str], run_names: list[str]) -> int:
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not -len(names) <= baseline < len(names):
            raise UsageError(f"baseline index {baseline} is out of range (0..{len(names) - 1})")
        return baseline % len(names)
    for pool in (names, run_names):
        if baseline in pool:
            return pool.index(baseline)
    raise UsageError(f"unknown baseline {baseline!r}; systems are: {', '.join(names)}")


def baseline_indices(
    baselines: Sequence[str | int], all_pairs: bool, results: Sequence[EvaluationResult]
) -> list[int]:
    """The input index of each baseline, in order, without repeats (all with ``all_pairs``)."""
    if all_pairs:
        return list(range(len(results)))
    run_names = [r.run.name for r in results]
    names = unique_names(run_names)
    found = [baseline_index(b, names, run_names) for b in baselines]
    return list(dict.fromkeys(found))


def compare_many(
    compare: Any,
    results: Sequence[EvaluationResult],
    baseline: str | int | Sequence[str | int],
    settings: dict[str, Any],
) -> ComparisonResult:
    """``compare`` (:func:`assay.stats.compare.compare`) with each baseline, merged.

    ``settings`` are the other keywords of ``compare``; with one baseline the
    plain comparison is returned.
    """

    all_pairs = bool(settings.pop("all_pairs"))
    listed = [baseline] if isinstance(baseline, str | int) else list(baseline)
    indices = baseline_indices(listed, all_pairs, results)
    if len(indices) <= 1:
        return compare(results, baseline=indices[0] if indices else 0, **settings)
    correction = check_correction(settings["correction"])
    one = {**settings, "correction": "none"}
    return compare_pairs(
        indices,
        correction=correction,
        alpha=settings["alpha"],
        compare_one=lambda index: compare(results, baseline=index, **one),
    )


def compare_pairs(
    baselines: list[int], *, correction: str, alpha: float, compare_one: Any
) -> ComparisonResult:
    """Merge ``compare_one(i)`` for each baseline index ``i``, pairs once, one family."""
    parts, done = [], set()
    comparisons, slices, overlap, power = [], [], [], []
    for index in baselines:
        part = compare_one(index)
        base = part.baseline
        fresh = {c for c in part.candidates if frozenset((base, c)) not in done}
        done |= {frozenset((base, c)) for c in fresh}
        keep = [c for c in part.comparisons if c.candidate in fresh]
        comparisons += [c.model_copy(update={"baseline": base}) for c in keep]
        slices += [
            s.model_copy(update={"baseline": base}) for s in part.slices if s.candidate in fresh
        ]
        overlap += [o for o in part.overlap if o.candidate in fresh]
        power += [p for p in part.power if p.candidate in fresh] if not parts else []
        parts.append(part)
    first = parts[0]
    return first.model_copy(
        update={
            "comparisons": _adjusted(comparisons, correction, alpha),
            "slices": _adjusted(slices, correction, alpha),
            "overlap": overlap,
            "power": power,
            "settings": first.settings.model_copy(update={"adjustment": correction}),
        }
    )


def _adjusted(rows: list[Any], correction: str, alpha: float) -> list[Any]:
    """``rows`` with ``p_adjusted`` and ``verdict`` over all of them as one family."""

    if not rows:
        return rows
    adjusted = adjust([r.p_value for r in rows], correction)
    return [
        r.model_copy(update={"p_adjusted": float(p), "verdict": verdict(r.delta, float(p), alpha)})
        for r, p in zip(rows, adjusted, strict=True)
    ]
