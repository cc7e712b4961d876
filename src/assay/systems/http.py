"""Evaluate a search system that answers over HTTP: any JSON API, OpenSearch or Solr.

:class:`HttpSystem` fills ``{query}`` and ``{k}`` into a URL (URL-encoded) and an
optional JSON body (inside string values, so any query text is safe; a value that
is exactly ``"{k}"`` becomes the number k), sends the request with httpx, and
reads hits from the JSON answer with small paths (:mod:`assay.systems.jsonpath`).

Secrets stay in the environment: ``${VAR}`` in the URL, a header or the body is
read from ``os.environ`` at call time only, and :attr:`HttpSystem.config` keeps
the ``${VAR}`` text. A missing variable is a :class:`~assay.core.errors.UsageError`.

:func:`from_config` builds a system from an ``assay.toml`` table of ``type =
"http"``; :mod:`assay.systems.opensearch` and :mod:`assay.systems.solr` build the
presets on :class:`HttpSystem`.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.limits import MAX_RESPONSE_BYTES
from assay.core.redact import REDACTED, redact, redact_text, register_secret
from assay.core.retry import RetryPolicy
from assay.io.http_transport import (
    CROSS_ORIGIN,
    MAX_REDIRECTS,
    REDIRECTS,
    TransientSystemError,
    exchange,
    origin_of,
)
from assay.io.safejson import loads as safe_loads
from assay.systems.base import Hit, System, SystemError_
from assay.systems.http_checks import (
    bad,
    check_body,
    check_headers,
    check_method,
    check_path,
    check_url,
    count,
    non_negative,
    positive,
)
from assay.systems.jsonpath import PathError, absent_last_key, format_path, get_path
from assay.systems.schema import HttpTable, RemoteTable

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\{(query|k)\}")
_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SENSITIVE_HEADER = re.compile(r"auth|key|token|secret|cookie|password|credential", re.I)
_SENSITIVE_PARAM = re.compile(
    r"([?&][^=&#]*(?:auth|key|token|secret|password|credential|sig)[^=&#]*=)([^&#]*)", re.I
)
_REDACTED = REDACTED
_SNIPPET = 200
#: Tells the registry (:mod:`assay.systems.config`) to pass ``${VAR}`` through
#: unresolved: this module reads the environment itself, at call time.
RESOLVES_ENV = True


class HttpSystem:
    """A search system behind an HTTP endpoint that returns JSON.

    ``url`` is a template with ``{query}`` and ``{k}``; ``body`` (POST) a JSON
    template (dict, or JSON text); ``hits_path`` points at the hit list in the
    response, ``id_path`` and ``score_path`` into one hit. Failed calls (timeout,
    connection error, HTTP 5xx, 408 or 429) raise :class:`TransientSystemError`;
    other failures (other 4xx, bad JSON) a plain :class:`SystemError_`. Each
    call makes one request: the runner (:mod:`assay.systems.runner`) is the one
    retry layer and retries transient failures with :attr:`retry_policy`
    (``retries`` and exponential ``backoff``, honouring ``Retry-After``).
    ``timeout`` is a deadline for the whole request (connect, headers, body),
    not per read; a body larger than ``max_response_bytes`` fails the call. A
    redirect to another origin drops every configured header
    (``cross_origin_redirects = "drop-headers"``) or fails the call
    (``"refuse"``). At most ``concurrency`` requests are in flight at a time,
    from :meth:`search_many` or from any number of threads calling :meth:`search`.
    """

    def __init__(
        self,
        name: str,
        *,
        url: str,
        method: str = "GET",
        body: Mapping[str, Any] | list[Any] | str | None = None,
        headers: Mapping[str, str] | None = None,
        hits_path: str = "hits",
        id_path: str = "id",
        score_path: str | None = "score",
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.5,
        concurrency: int = 4,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        cross_origin_redirects: str = "drop-headers",
        type_: str = "http",
    ) -> None:
        self.name = name
        self._type = type_
        self._url = check_url(name, url)
        self._method = check_method(name, method)
        self._body = check_body(name, body)
        self._headers = check_headers(name, headers)
        # "root.children?": an absent last key is an empty hit list (Vespa omits it on no match)
        self._hits_optional = isinstance(hits_path, str) and hits_path.rstrip().endswith("?")
        if self._hits_optional:
            hits_path = hits_path.rstrip()[:-1]
        self._hits_path = check_path(name, "hits_path", hits_path)
        self._id_path = check_path(name, "id_path", id_path)
        self._score_path = (
            None if score_path is None else check_path(name, "score_path", score_path)
        )
        self._timeout = positive(name, "timeout", timeout)
        self._backoff = non_negative(name, "backoff", backoff)
        self._retries = count(name, "retries", retries, minimum=0)
        self._concurrency = count(name, "concurrency", concurrency, minimum=1)
        self._max_bytes = count(name, "max_response_bytes", max_response_bytes, minimum=1)
        if cross_origin_redirects not in CROSS_ORIGIN:
            raise bad(
                name,
                "cross_origin_redirects",
                f"must be one of {', '.join(CROSS_ORIGIN)}, got {cross_origin_redirects!r}",
            )
        self._cross_origin = cross_origin_redirects
        self._env_vars = tuple(sorted(_env_names(self._url, self._body, self._headers)))
        self._client: Any = None
        self._lock = threading.Lock()

    # -- the System protocol -------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """What decides the results: templates with ``${VAR}`` kept, literal secrets hidden.

        Timeout, retries, backoff and concurrency are left out: they change how
        the system is called, not what it returns.
        """
        return {
            "type": self._type,
            "url": _shown_template(self._url),
            "method": self._method,
            "body": redact(self._body),
            "headers": {
                key: _REDACTED if _SENSITIVE_HEADER.search(key) and not _ENV_VAR.search(v) else v
                for key, v in self._headers.items()
            },
            "hits_path": format_path(self._hits_path) + ("?" if self._hits_optional else ""),
            "id_path": format_path(self._id_path),
            "score_path": None if self._score_path is None else format_path(self._score_path),
        }

    @property
    def retry_policy(self) -> RetryPolicy:
        """How the runner retries this system's transient failures."""
        return RetryPolicy(retries=self._retries, backoff=self._backoff)

    @property
    def concurrency(self) -> int:
        """How many requests may be in flight at once (a runner may use as many threads)."""
        return self._concurrency

    def search(self, query: str, k: int) -> list[Hit]:
        """Send one query; return up to ``k`` hits or raise :class:`SystemError_`."""
        return self._call(self._get_client(), query, k, self._environment())

    def search_many(self, queries: list[str], k: int) -> list[list[Hit] | SystemError_]:
        """Send many queries, ``concurrency`` at a time; results (or errors) in input order."""
        if not queries:
            return []
        env = self._environment()
        client = self._get_client()

        def one(query: str) -> list[Hit] | SystemError_:
            try:
                return self._call(client, query, k, env)
            except SystemError_ as exc:
                return exc

        with ThreadPoolExecutor(max_workers=min(self._concurrency, len(queries))) as pool:
            return list(pool.map(one, queries))

    # -- lifecycle -----------------------------------------------------------

    def close(self) -> None:
        """Close the connection pool (a later call opens a new one)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> HttpSystem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        url = _SENSITIVE_PARAM.sub(lambda m: m.group(1) + _REDACTED, self._url)
        return f"HttpSystem(name={self.name!r}, method={self._method!r}, url={url!r})"

    # -- internals -----------------------------------------------------------

    def _get_client(self) -> Any:
        import httpx

        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self._timeout, pool=self._timeout),
                    limits=httpx.Limits(
                        max_connections=self._concurrency,
                        max_keepalive_connections=self._concurrency,
                    ),
                    follow_redirects=False,  # followed by hand: headers never cross origins
                )
            return self._client

    def _environment(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for var in self._env_vars:
            value = os.environ.get(var)
            if value is None:
                raise UsageError(
                    f"system {self.name!r}: environment variable {var} is not set"
                    f" (its config refers to ${{{var}}}; export {var}=...)"
                )
            register_secret(value)  # never written or printed (assay.core.redact)
            env[var] = value
        return env

    def _call(self, client: Any, query: str, k: int, env: dict[str, str]) -> list[Hit]:
        """One request (following redirects by hand) within one deadline of ``timeout``."""
        k = at_least("k", k)
        url = _fill(self._url, query, k, env, url=True)
        shown = _shown_url(self._url, query, k)
        headers = {key: _fill(v, query, k, env) for key, v in self._headers.items()}
        body = None if self._body is None else _fill_json(self._body, query, k, env)
        method = self._method
        where = f"system {self.name!r}: {self._method} {shown}"
        deadline = time.monotonic() + self._timeout
        origin = origin_of(url)
        for _hop in range(MAX_REDIRECTS + 1):
            status, location, retry_after, content = exchange(
                client, method, url, headers, body, deadline, self._max_bytes, where, self._timeout
            )
            if status in REDIRECTS and location:
                target = urljoin(url, location)
                if origin_of(target) != origin and headers:
                    if self._cross_origin == "refuse":
                        raise SystemError_(
                            f"{where}: redirected to another origin ({origin_of(target)}); "
                            'refused (cross_origin_redirects = "refuse")'
                        )
                    headers = {}  # configured headers (credentials) stay with their origin
                if status == 303 or (status in (301, 302) and method == "POST"):
                    method, body = "GET", None
                url = target
                continue
            return self._answer(status, retry_after, content, k, where, shown)
        raise SystemError_(f"{where}: more than {MAX_REDIRECTS} redirects")

    def _answer(
        self,
        status: int,
        retry_after: float | None,
        content: bytes,
        k: int,
        where: str,
        shown: str,
    ) -> list[Hit]:
        text = _snippet(content.decode("utf-8", "replace"))
        if status >= 500 or status in (408, 429):
            raise TransientSystemError(f"{where}: HTTP {status}: {text}", retry_after=retry_after)
        if status >= 400:
            raise SystemError_(f"{where}: HTTP {status}: {text} (client errors are not retried)")
        if status >= 300:
            raise SystemError_(f"{where}: HTTP {status} without a usable Location header")
        return self._parse(content, k, shown)

    def _parse(self, content: bytes, k: int, shown: str) -> list[Hit]:
        where = f"system {self.name!r}: response from {shown}"
        try:
            payload = safe_loads(content)
        except ValueError as exc:
            raise SystemError_(
                f"{where} is not valid JSON ({exc}): {_snippet(content.decode('utf-8', 'replace'))}"
            ) from None
        try:
            items = get_path(payload, self._hits_path)
        except PathError as exc:
            if self._hits_optional and absent_last_key(payload, self._hits_path):
                return []
            raise SystemError_(
                f"{where} has no hit list at {format_path(self._hits_path)!r}: {exc}"
                " (check hits_path)"
            ) from None
        if not isinstance(items, list):
            raise SystemError_(
                f"{where}: {format_path(self._hits_path)!r} is not a list (check hits_path)"
            )
        return [self._hit(item, rank, where) for rank, item in enumerate(items[:k], start=1)]

    def _hit(self, item: Any, rank: int, where: str) -> Hit:
        id_text = format_path(self._id_path)
        try:
            doc_id = get_path(item, self._id_path)
        except PathError as exc:
            raise SystemError_(
                f"{where}: hit {rank} has no id at {id_text!r}: {exc} (check id_path)"
            ) from None
        if isinstance(doc_id, bool) or not isinstance(doc_id, str | int) or doc_id == "":
            raise SystemError_(f"{where}: hit {rank} has id {doc_id!r} at {id_text!r}")
        return Hit(str(doc_id), self._score(item, rank, where))

    def _score(self, item: Any, rank: int, where: str) -> float | None:
        if self._score_path is None:
            return None
        score_text = format_path(self._score_path)
        try:
            raw = get_path(item, self._score_path)
        except PathError as exc:
            raise SystemError_(
                f"{where}: hit {rank} has no score at {score_text!r}: {exc}"
                " (check score_path, or set it to none)"
            ) from None
        if raw is None:
            return None
        score: float | None = None
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            score = float(raw)
        elif isinstance(raw, str):
            try:
                score = float(raw)
            except ValueError:
                score = None
        if score is None or not math.isfinite(score):
            raise SystemError_(f"{where}: hit {rank} has a non-numeric score {raw!r}")
        return score


# -- templates ---------------------------------------------------------------


def _fill(
    template: str,
    query: str,
    k: int,
    env: Mapping[str, str],
    *,
    url: bool = False,
    keep_env: bool = False,
) -> str:
    """Replace ``{query}``, ``{k}`` and ``${VAR}`` in one pass (no re-expansion)."""

    def sub(match: re.Match[str]) -> str:
        var, name = match.group(1), match.group(2)
        if var is not None:
            return match.group(0) if keep_env else env[var]
        if name == "k":
            return str(k)
        return quote(query, safe="") if url else query

    return _PLACEHOLDER.sub(sub, template)


def _fill_json(template: Any, query: str, k: int, env: Mapping[str, str]) -> Any:
    """Substitute inside the string values of a JSON template; ``"{k}"`` becomes a number."""
    if isinstance(template, str):
        if template == "{k}":
            return k
        return _fill(template, query, k, env)
    if isinstance(template, dict):
        return {key: _fill_json(value, query, k, env) for key, value in template.items()}
    if isinstance(template, list):
        return [_fill_json(value, query, k, env) for value in template]
    return template


def _shown_url(template: str, query: str, k: int) -> str:
    """The URL for messages: ``${VAR}`` kept, secret-looking parameter values hidden."""
    url = _fill(template, query, k, {}, url=True, keep_env=True)

    def hide(match: re.Match[str]) -> str:
        value = match.group(2)
        return match.group(0) if _ENV_VAR.fullmatch(value) else match.group(1) + _REDACTED

    return _SENSITIVE_PARAM.sub(hide, url)


def _shown_template(template: str) -> str:
    """A URL template with literal secret-looking parameter values hidden, ``${VAR}`` kept."""

    def hide(match: re.Match[str]) -> str:
        value = match.group(2)
        return match.group(0) if _ENV_VAR.fullmatch(value) else match.group(1) + _REDACTED

    return _SENSITIVE_PARAM.sub(hide, template)


def _env_names(url: str, body: Any, headers: Mapping[str, str]) -> set[str]:
    names = set(_ENV_VAR.findall(url))
    for value in headers.values():
        names.update(_ENV_VAR.findall(value))
    names.update(_ENV_VAR.findall(json.dumps(body)))
    return names


def _snippet(text: str) -> str:
    """A short, redacted excerpt of a response body for a message."""
    text = " ".join(text[: _SNIPPET * 8].split())
    text = text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."
    return redact_text(text)


#: The keys every system behind HTTP shares (:class:`assay.systems.schema.RemoteTable`).
_REMOTE = ("timeout", "retries", "backoff", "concurrency")
_REMOTE += ("max_response_bytes", "cross_origin_redirects")


def remote_options(table: RemoteTable) -> dict[str, Any]:
    """The :class:`HttpSystem` arguments every remote table holds (timeouts, retries...)."""
    return {key: getattr(table, key) for key in _REMOTE}


def from_config(name: str, table: HttpTable, *, corpus: Any, base_dir: Path) -> System:
    """Build an :class:`HttpSystem` from a checked ``type = "http"`` table of assay.toml.

    ``corpus`` and ``base_dir`` are unused (the documents live in the service).
    """
    del corpus, base_dir
    return HttpSystem(
        name,
        url=table.url,
        method=table.method,
        body=table.body,
        headers=table.headers,
        hits_path=table.hits_path,
        id_path=table.id_path,
        score_path=table.score_path,
        **remote_options(table),
    )
