"""The text report of ``assay generate queries``."""

from __future__ import annotations

from assay.generate.queries import QueryStats, SyntheticQueries


def _stats(label: str, s: QueryStats | None) -> str:
    if s is None:
        return f"{label}: -"
    return (
        f"{label}: {s.queries} queries, word overlap with the relevant passage "
        f"{s.overlap_mean:.3f}, BM25 MRR {s.mrr:.3f}, R@10 {s.recall_at_10:.3f}"
    )


def render_queries(result: SyntheticQueries, path: str | None = None) -> str:
    """Counts, overlap, BM25 on both sets and the findings (``path``: the queries file)."""
    path = path or result.output or "the queries file"
    lines = [
        f"wrote {len(result.rows)} synthetic queries to {path} (source = model, synthetic = "
        f"true; model {result.model.get('model')}, prompt {result.prompt_hash})",
        f"passages sampled {result.requested} (seed {result.seed}); duplicates removed "
        f"{result.duplicates_removed}; unscored answers {result.unscored}",
        _stats("synthetic", result.synthetic),
    ]
    if result.human is not None:
        lines.append(_stats("human", result.human))
    lines += result.findings
    u = result.usage
    lines.append(f"calls {u.calls} (cached {u.cached}); cost ${u.cost:.6f}")
    return "\n".join(lines)
