"""Two small Ray helpers the executor and the model actors share: the error a task raised,
and where long-lived actors are placed. Ray itself is imported by the callers."""

from __future__ import annotations

from typing import Any


def cause(exc: BaseException) -> BaseException:
    """The error a task raised, out of Ray's wrapper."""
    inner = getattr(exc, "cause", None)
    return inner if isinstance(inner, BaseException) else exc


def spread_placements(ray: Any, n: int) -> list[Any]:
    """Scheduling strategies for ``n`` long-lived actors, dealt round-robin over the alive
    nodes (soft: Ray may still place one elsewhere when its node is gone). ``SPREAD`` alone
    is best effort and may put every zero-CPU actor on the driver's node."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = sorted(node["NodeID"] for node in ray.nodes() if node.get("Alive"))
    if not nodes:
        return ["SPREAD"] * n
    return [NodeAffinitySchedulingStrategy(nodes[i % len(nodes)], soft=True) for i in range(n)]
