"""Model calls on a Ray cluster: actors make the calls, the driver keeps the rest.

A :class:`RemoteChatClient` stands in for the driver's chat client. The driver
still looks up the model-call cache, reserves the budget before each call
(the graders' own path, :func:`assay.judges.grading.call_within_budget`),
writes every answer to the cache and builds the output; only the HTTP call
itself is made by one of ``concurrency`` actors dealt round-robin over the nodes (each
with its own connection pool, no cache). One more actor holds the model's
``rate_limit`` for the whole cluster (:class:`~assay.executors.ratelimit.TokenBucket`).
"""

from __future__ import annotations

import queue
import time
from typing import TYPE_CHECKING, Any

from assay.executors.ratelimit import TokenBucket, limited_transport, rate_of
from assay.executors.ray_tools import cause, spread_placements

if TYPE_CHECKING:  # pragma: no cover
    from assay.executors.ray_backend import RayExecutor


class _Caller:
    """Actor body: one model client (no cache) whose every request waits for a slot of the
    cluster-wide bucket."""

    def __init__(self, reopen: Any, config: Any, policy: Any, bucket: Any) -> None:

        self.bucket = bucket
        transport = None
        if bucket is not None:
            transport = limited_transport(self._take, int(config.concurrency))
        self.client = reopen(config, policy, transport)

    def _take(self) -> None:
        import ray

        wait = ray.get(self.bucket.reserve.remote())
        if wait > 0:
            time.sleep(wait)

    def complete(self, messages: list[dict[str, str]], schema: Any, sample: int) -> Any:
        """One call to the server (retries included), the answer back to the driver."""
        return self.client.complete(messages, schema, sample, look_up=False)


class RemoteChatClient:
    """The driver's chat client, with the server calls made by actors on the cluster."""

    def __init__(self, client: Any, executor: RayExecutor) -> None:

        ray = executor.ray()
        self._inner = client
        self._ray = ray
        rate = rate_of(client)
        bucket = None
        if rate is not None:
            bucket = ray.remote(num_cpus=0)(TokenBucket).remote(rate)
        actor = ray.remote(num_cpus=0)(_Caller)
        n = max(1, int(client.config.concurrency))
        reopen = type(client).reopen  # the client's own factory: executors import no provider
        self._actors = [
            actor.options(
                scheduling_strategy=placement,
                max_restarts=executor.options.max_retries,
                max_task_retries=executor.options.max_retries,
            ).remote(reopen, client.config, client.policy, bucket)
            for placement in spread_placements(ray, n)
        ]
        self._bucket = bucket
        # wait until every actor is up: a model's timeout must not run while a worker starts
        ray.get([a.__ray_ready__.remote() for a in [*self._actors, *([bucket] if bucket else [])]])
        self._free: queue.Queue[Any] = queue.Queue()
        for a in self._actors:
            self._free.put(a)

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None = None,
        sample: int = 0,
        *,
        look_up: bool = True,
    ) -> Any:
        """One completion: the cache here, the call on a free actor, the answer cached here."""
        inner = self._inner
        hit = inner.cached(messages, schema, sample) if look_up else None
        if hit is not None:
            return hit
        if inner.offline:
            return inner.complete(messages, schema, sample, look_up=False)  # raises OfflineMiss
        actor = self._free.get()
        try:
            answer = self._ray.get(actor.complete.remote(messages, schema, sample))
        except self._ray.exceptions.RayTaskError as exc:
            raise cause(exc) from None
        except self._ray.exceptions.RayError as exc:
            reason = f"the Ray actor calling it was lost ({type(exc).__name__})"
            raise inner.failure(reason) from None
        finally:
            self._free.put(actor)
        inner.remember(messages, schema, sample, answer)
        return answer

    def close(self) -> None:
        """End the actors and close the driver's client."""
        for a in self._actors:
            self._ray.kill(a)
        if self._bucket is not None:
            self._ray.kill(self._bucket)
        self._actors = []
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
