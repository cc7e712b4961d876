"""A requests-per-minute limit on model calls (``rate_limit`` in ``[models.NAME]``).

One rule for both executors: :class:`TokenBucket` hands out request slots
spaced ``60 / rate_limit`` seconds apart (a bucket of one token, so there is no
burst: no window of a minute ever holds more than ``rate_limit`` requests plus
the one at its edge). Every HTTP request takes a slot, retries included (the
client's transport waits for it). Locally the bucket lives in this process; on
Ray one actor holds it for every worker of the cluster (:mod:`assay.executors.models`).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any


class TokenBucket:
    """Call slots at most ``per_minute`` a minute, cluster-wide when held by one actor."""

    def __init__(self, per_minute: float) -> None:
        if not per_minute > 0:
            raise ValueError(f"rate_limit must be > 0 requests per minute, got {per_minute!r}")
        self.spacing = 60.0 / float(per_minute)
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Reserve the next slot; the seconds to wait before using it (0: now)."""
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self.spacing
            return slot - now

    def acquire(self) -> None:
        """Wait for a slot (this process's bucket)."""
        wait = self.reserve()
        if wait > 0:
            time.sleep(wait)


def rate_of(client: Any) -> float | None:
    """The ``rate_limit`` (requests per minute) of a client's model, if it has one."""
    rate = getattr(getattr(client, "config", None), "rate_limit", None)
    return float(rate) if rate else None


def limited_transport(take: Callable[[], None], connections: int) -> Any:
    """An httpx transport that calls ``take()`` (wait for a slot) before every request:
    retries and ``Retry-After`` waits included, so the server never sees more."""
    import httpx

    class _Limited(httpx.BaseTransport):
        def __init__(self) -> None:
            limits = httpx.Limits(
                max_connections=connections, max_keepalive_connections=connections
            )
            self.inner = httpx.HTTPTransport(limits=limits)

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            take()
            return self.inner.handle_request(request)

        def close(self) -> None:
            self.inner.close()

    return _Limited()


_LIMITED: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def limited(client: Any) -> Any:
    """``client`` when its model has no ``rate_limit``; else a client of the same model,
    cache and retry policy whose every request waits for a slot of one bucket (made once
    per client, so that every grading pass over it shares the limit)."""
    rate = rate_of(client)
    if rate is None:
        return client
    if client not in _LIMITED:
        from assay.providers.client import open_client

        bucket = TokenBucket(rate)
        twin = open_client(
            client.config,
            no_cache=True,
            policy=client.policy,
            transport=limited_transport(bucket.acquire, int(client.config.concurrency)),
        )
        twin.cache, twin.offline = client.cache, client.offline  # the same cache, shared
        _LIMITED[client] = twin
    return _LIMITED[client]
