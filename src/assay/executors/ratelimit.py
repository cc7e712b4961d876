"""A requests-per-minute limit on model calls (``rate_limit`` in ``[models.NAME]``).

One rule for both executors: :class:`TokenBucket` hands out call slots spaced
``60 / rate_limit`` seconds apart (a bucket of one token, so there is no
burst: no window of a minute ever holds more than ``rate_limit`` starts plus
the one at its edge). Locally the bucket lives in this process; on Ray one
actor holds it for every worker of the cluster (:mod:`assay.executors.models`).
"""

from __future__ import annotations

import threading
import time
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


class LimitedClient:
    """A chat client whose calls to the server wait for a slot of a :class:`TokenBucket`;
    answers from the cache never wait. Everything else is the wrapped client's."""

    def __init__(self, client: Any, bucket: TokenBucket) -> None:
        self._inner = client
        self._bucket = bucket

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None = None,
        sample: int = 0,
        *,
        look_up: bool = True,
    ) -> Any:
        """One completion; a slot is waited for only when the server is called."""
        hit = self._inner.cached(messages, schema, sample) if look_up else None
        if hit is not None:
            return hit
        if not self._inner.offline:
            self._bucket.acquire()
        return self._inner.complete(messages, schema, sample, look_up=False)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def limited(client: Any) -> Any:
    """``client`` behind a token bucket when its model has a ``rate_limit``, else itself."""
    rate = rate_of(client)
    return client if rate is None else LimitedClient(client, TokenBucket(rate))
