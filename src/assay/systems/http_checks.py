"""Checks of an HTTP system's configuration: each error names the system and the field."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from assay.core import limits
from assay.core.errors import UsageError
from assay.io.safejson import loads as safe_loads
from assay.systems.jsonpath import Step, parse_path


def bad(name: str, field: str, message: str, hint: str | None = None) -> UsageError:
    text = f"system {name!r}: {field} {message}"
    return UsageError(text + (f" ({hint})" if hint else ""))


def check_url(name: str, url: Any) -> str:
    if not isinstance(url, str) or not re.match(r"(https?://|\$\{)", url.strip()):
        raise bad(name, "url", f"must be an http(s) URL, got {url!r}")
    return url.strip()


def check_method(name: str, method: Any) -> str:
    if not isinstance(method, str) or method.upper() not in {"GET", "POST"}:
        raise bad(name, "method", f"must be GET or POST, got {method!r}")
    return method.upper()


def check_body(name: str, body: Any) -> Any:
    if body is None:
        return None
    if isinstance(body, str):
        try:
            body = safe_loads(body)
        except ValueError as exc:
            raise bad(
                name, "body", f"is not valid JSON: {exc}", 'write placeholders as "{query}"'
            ) from None
    if not isinstance(body, Mapping | list):
        raise bad(name, "body", "must be a JSON object or list")
    try:
        return json.loads(json.dumps(body))  # a plain, private copy
    except (TypeError, ValueError) as exc:
        raise bad(name, "body", f"is not JSON-serialisable: {exc}") from None


def check_headers(name: str, headers: Any) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise bad(name, "headers", "must be a table of header names to values")
    out: dict[str, str] = {}
    for key, value in headers.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise bad(name, f"headers.{key}", f"must be a string, got {value!r}")
        out[key] = value
    return out


def check_path(name: str, field: str, path: Any) -> tuple[Step, ...]:
    if not isinstance(path, str):
        raise bad(name, field, f"must be a string like 'hits.hits', got {path!r}")
    try:
        return parse_path(path)
    except ValueError as exc:
        raise bad(name, field, str(exc)) from None


def positive(name: str, field: str, value: Any) -> float:
    """A timeout: finite, > 0, at most :data:`assay.core.limits.MAX_TIMEOUT` seconds."""
    return limits.seconds(value, f"system {name!r}: {field}")


def non_negative(name: str, field: str, value: Any) -> float:
    """A backoff: finite, >= 0, at most :data:`assay.core.limits.MAX_BACKOFF` seconds."""
    return limits.seconds(value, f"system {name!r}: {field}", maximum=limits.MAX_BACKOFF, zero=True)


def count(name: str, field: str, value: Any, *, minimum: int) -> int:
    """A whole number >= ``minimum``; ``retries`` also at most :data:`limits.MAX_RETRIES`."""
    if field == "retries":
        return limits.retries(value, f"system {name!r}: retries")
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise bad(name, field, f"must be an integer >= {minimum}, got {value!r}")
    return value


# -- assay.toml ----------------------------------------------------------------
