"""The hybrid baseline: fuse the ranked lists of other systems (RRF or score fusion).

A :class:`HybridSystem` asks each of its systems for ``max(depth, k)`` hits,
fuses them with :func:`assay.systems.fusion.fuse_lists` (the same code as the
run-level :func:`~assay.systems.fusion.fuse_rrf` and friends, checked against
pyserini's expected outputs) and returns the top ``k``. Fusion is
deterministic: ties are broken by doc id, so two runs give identical lists
whenever the underlying systems do.

Registry contract (``from_config``): ``systems = ["bm25", "vector"]`` names
other ``[systems.*]`` tables. Each entry may also be an already-built
:class:`System`. Names are resolved by ``table["resolve"]`` when the registry
passes a callable ``name -> System``; otherwise by
:func:`assay.systems.config.build_system` with ``base_dir / "assay.toml"`` as
the config file and the hybrid's corpus (when it has one) as the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.io.configfile import DEFAULT_CONFIG
from assay.systems._corpus import check_k
from assay.systems.base import Hit, System
from assay.systems.config import build_system
from assay.systems.fusion import FUSION_METHODS, FusionMethod, fuse_lists, resolve_weights
from assay.systems.schema import HybridTable

_BUILDING: ContextVar[tuple[str, ...]] = ContextVar("assay_hybrid_building", default=())


class HybridSystem:
    """Fusion of several systems' rankings.

    ``method``: ``"rrf"`` (``1 / (k_rrf + rank)`` summed), ``"minmax"``
    (per-query min-max normalised scores, summed with ``weights``, default 1.0
    each), ``"interpolation"`` (two systems, ``alpha * s1 + (1 - alpha) * s2``
    on raw scores) or ``"average"``. ``depth`` is how many hits are taken from
    each system. ``search_many`` batches through the systems' own
    ``search_many`` when they have one.
    """

    def __init__(
        self,
        systems: Sequence[System],
        *,
        method: FusionMethod = "rrf",
        k_rrf: int = 60,
        weights: Sequence[float] | None = None,
        alpha: float = 0.5,
        depth: int = 1000,
        name: str = "hybrid",
    ) -> None:
        systems = list(systems)
        if len(systems) < 2:
            raise UsageError(f"hybrid {name!r} needs at least two systems, got {len(systems)}")
        if method not in FUSION_METHODS:
            raise UsageError(
                f"unknown fusion method {method!r} (choose one of {', '.join(FUSION_METHODS)})"
            )
        if isinstance(k_rrf, bool) or not isinstance(k_rrf, int) or k_rrf < 0:
            raise UsageError(f"k_rrf must be an integer >= 0, got {k_rrf!r}")
        check_k(depth)
        self.weights = None if weights is None else [float(w) for w in weights]
        resolve_weights(method, len(systems), self.weights, alpha)  # validates
        self.systems = systems
        self.method = method
        self.k_rrf = k_rrf
        self.alpha = float(alpha)
        self.depth = depth
        self.name = name

    @property
    def config(self) -> dict[str, Any]:
        """Fusion parameters and the full config of every fused system, in order."""
        cfg: dict[str, Any] = {
            "type": "hybrid",
            "method": self.method,
            "depth": self.depth,
            "systems": [{"name": s.name, **s.config} for s in self.systems],
        }
        if self.method == "rrf":
            cfg["k_rrf"] = self.k_rrf
        elif self.method == "interpolation":
            cfg["alpha"] = self.alpha
        elif self.method == "minmax":
            cfg["weights"] = resolve_weights("minmax", len(self.systems), self.weights, 0.5)
        return cfg

    def prepare(self) -> HybridSystem:
        """Prepare every fused system that has a ``prepare`` method; returns self."""
        for system in self.systems:
            prepare = getattr(system, "prepare", None)
            if callable(prepare):
                prepare()
        return self

    def set_offline(self, offline: bool = True) -> None:
        """Pass ``--offline`` on to every fused system that can make model calls."""
        for system in self.systems:
            setter = getattr(system, "set_offline", None)
            if callable(setter):
                setter(offline)

    def search(self, query: str, k: int) -> list[Hit]:
        """The top ``k`` fused hits for one query."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """The top ``k`` fused hits for each query, in query order."""
        check_k(k)
        queries = list(queries)
        n = max(self.depth, k)
        per_system = [_search_all(system, queries, n) for system in self.systems]
        out: list[list[Hit]] = []
        for qi in range(len(queries)):
            lists = [
                [(h.doc_id, h.score, rank) for rank, h in enumerate(hits[qi], start=1)]
                for hits in per_system
            ]
            fused = fuse_lists(
                lists,
                method=self.method,
                k_rrf=self.k_rrf,
                weights=self.weights,
                alpha=self.alpha,
                depth=n,
                limit=k,
            )
            out.append([Hit(doc, score) for doc, score in fused])
        return out

    def __repr__(self) -> str:
        names = ", ".join(s.name for s in self.systems)
        return f"HybridSystem({self.name!r}, method={self.method!r}, systems=[{names}])"


def _search_all(system: System, queries: list[str], k: int) -> list[list[Hit]]:
    many = getattr(system, "search_many", None)
    if callable(many):
        return list(many(queries, k))
    return [system.search(q, k) for q in queries]


def from_config(
    name: str,
    table: HybridTable,
    *,
    corpus: Any,
    base_dir: Path,
    resolve: Callable[[str], System] | None = None,
) -> HybridSystem:
    """Build a :class:`HybridSystem` from a checked ``[systems.NAME]`` table of assay.toml.

    Each name of ``systems`` is built by ``resolve`` (the registry passes one that
    reads the same config file; default: ``base_dir/assay.toml``). A system that
    names itself, directly or through another hybrid, is refused.
    """
    building = _BUILDING.get()
    resolve = resolve or _resolver(corpus, base_dir)
    token = _BUILDING.set((*building, name))
    try:
        built: list[System] = []
        for member in table.systems:
            if member == name or member in building:
                raise UsageError(f"[systems.{name}]: hybrid includes itself via {member!r}")
            built.append(resolve(member))
    finally:
        _BUILDING.reset(token)
    return HybridSystem(
        built,
        name=name,
        method=table.method,
        k_rrf=table.k_rrf,
        weights=table.weights,
        alpha=table.alpha,
        depth=table.depth,
    )


def _resolver(corpus: Any, base_dir: Path) -> Callable[[str], System]:
    def build(sub: str) -> System:
        cfg = Path(base_dir) / DEFAULT_CONFIG
        return build_system(sub, config_path=cfg if cfg.is_file() else None, corpus=corpus)

    return build
