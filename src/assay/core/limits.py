"""The bounds of the numbers a system's configuration holds, stated once.

Every timeout, backoff and retry count of a system (``[systems.NAME]`` of
``assay.toml``, ``--retries``) is checked against these: finite, in range,
refused when the configuration is read (:class:`~assay.core.errors.UsageError`, exit 2).
"""

from __future__ import annotations

import math
from typing import Any

from assay.core.errors import UsageError

#: The longest timeout of a call, in seconds (one day).
MAX_TIMEOUT = 86_400.0
#: The longest base backoff between attempts, in seconds.
MAX_BACKOFF = 600.0
#: The most retries of one call (``retries``, ``--retries``).
MAX_RETRIES = 100
#: The most calls of one system in flight at once (``concurrency``).
MAX_CONCURRENCY = 1024
#: The default cap on a response body, in bytes (HTTP systems and model endpoints).
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


def seconds(value: Any, where: str, *, maximum: float = MAX_TIMEOUT, zero: bool = False) -> float:
    """``value`` as seconds: a finite number > 0 (>= 0 with ``zero``) and <= ``maximum``."""
    low = ">= 0" if zero else "> 0"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (value == 0 and not zero)
        or value > maximum
    ):
        raise UsageError(
            f"{where} must be a finite number of seconds {low} and <= {maximum:g}, got {value!r}"
        )
    return float(value)


def retries(value: Any, where: str) -> int:
    """``value`` as a retry count: a whole number from 0 to :data:`MAX_RETRIES`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RETRIES:
        raise UsageError(f"{where} must be a whole number from 0 to {MAX_RETRIES}, got {value!r}")
    return value
