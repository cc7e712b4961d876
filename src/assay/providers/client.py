"""An OpenAI-compatible chat client over httpx (``POST {base_url}/chat/completions``).

Why httpx and not the ``openai`` package: httpx is already a dependency (the
HTTP systems use it), the chat-completions request is a few JSON keys that
OpenAI, Azure, vLLM, Ollama and llama.cpp's server all accept, and the
``openai`` 3.x package is built on ``httpx2``, which neither ``respx`` nor our
stub fixtures can intercept. One small client also lets the structured-output
mode be chosen per server: ``json_schema`` (OpenAI, vLLM), ``json_object``
with the schema beside it (llama.cpp's server refuses the JSON-schema mode of
``chat.completions.parse``) or plain ``text`` parsed for the first JSON object.

Transient failures (timeouts, connection errors, 408, 429, 5xx) go through the
one retry rule, :func:`assay.core.retry.call_with_retries`, which honours
``Retry-After``. Answers are cached (:mod:`assay.providers.call_cache`); errors never.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import AssayError, SystemCallError, UsageError
from assay.core.redact import redact_text
from assay.core.retry import RetryPolicy, Transient, call_with_retries
from assay.io.configfile import redact
from assay.io.http_transport import exchange
from assay.io.safejson import loads
from assay.io.textio import parse_json, parse_json_at
from assay.providers.accounting import CallRecord
from assay.providers.call_cache import CallCache, call_key
from assay.providers.model_config import ModelConfig, get_model

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ProviderError(AssayError):
    """A call that failed for good (4xx, a body that is not a chat completion, retries spent)."""


class OfflineMiss(AssayError):
    """``--offline`` and the answer is not in the cache."""


@dataclass(frozen=True)
class ChatAnswer:
    """What the model said, with the call's accounting."""

    content: str | None
    refusal: str | None
    finish_reason: str | None
    model: str | None
    record: CallRecord


class ChatClient:
    """Calls one model; thread-safe, at most ``concurrency`` requests in flight."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        cache: CallCache | None = None,
        offline: bool = False,
        policy: RetryPolicy | None = None,
        transport: Any = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.offline = offline
        self.policy = policy or RetryPolicy(retries=config.retries)
        self._transport = transport
        self._client: Any = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ keys
    def params(self) -> dict[str, Any]:
        """The parameters that shape an answer (part of the cache key)."""
        c = self.config
        return {
            "temperature": c.temperature,
            "max_tokens": c.max_tokens,
            "structured": c.structured,
        }

    def key(self, messages: list[dict[str, str]], schema: dict | None, sample: int) -> str:
        """The cache key of a call (secrets are not part of it)."""

        return call_key(
            endpoint=redact(self.config.endpoint, self.config.secrets),
            model=self.config.model,
            messages=messages,
            params=self.params(),
            schema=schema,
            sample=sample,
        )

    def cached(
        self, messages: list[dict[str, str]], schema: dict | None, sample: int
    ) -> ChatAnswer | None:
        """The cached answer of this call, or ``None``."""
        if self.cache is None:
            return None
        stored = self.cache.get(self.key(messages, schema, sample))
        return None if stored is None else _from_store(stored)

    # ------------------------------------------------------------------ calls
    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None = None,
        sample: int = 0,
        *,
        look_up: bool = True,
    ) -> ChatAnswer:
        """One chat completion: from the cache when there, else from the server (then cached).

        ``look_up=False`` skips the cache lookup (the caller just missed). Raises
        :class:`OfflineMiss` when offline and not cached, :class:`ProviderError`
        when the call fails for good.
        """
        hit = self.cached(messages, schema, sample) if look_up else None
        if hit is not None:
            return hit
        if self.offline:
            raise OfflineMiss("not in the model-call cache and --offline forbids calls")
        body = self._body(messages, schema)
        start = time.monotonic()
        deadline = start + self.config.timeout  # the whole call, retries included
        try:
            data, attempts = call_with_retries(
                lambda: self._post(body, deadline), self.policy, deadline=deadline
            )
        except Transient as exc:
            raise ProviderError(f"{exc} (after {exc.attempts} attempts)") from None
        latency = time.monotonic() - start
        answer = _answer(data, self.config, latency, attempts)
        if self.cache is not None:
            self.cache.put(self.key(messages, schema, sample), _to_store(answer))
        return answer

    def _body(self, messages: list[dict[str, str]], schema: dict | None) -> dict[str, Any]:
        c = self.config
        body: dict[str, Any] = {
            "model": c.model,
            "messages": messages,
            "temperature": c.temperature,
            "max_tokens": c.max_tokens,
        }
        if schema is not None and c.structured == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema, "strict": True},
            }
        elif schema is not None and c.structured == "json_object":
            body["response_format"] = {"type": "json_object", "schema": schema}
        return body

    def _post(self, body: dict[str, Any], deadline: float) -> Any:
        """One attempt, bounded by ``deadline`` and ``max_response_bytes`` (the HTTP systems'
        exchange: the same deadline and size rule)."""

        c = self.config
        headers = {"Content-Type": "application/json", **c.headers}
        if c.api_key:
            headers["Authorization"] = f"Bearer {c.api_key}"
        where = f"model {c.name!r}"
        if time.monotonic() >= deadline:
            raise Transient(f"{where}: no complete answer within timeout {c.timeout:g} s")
        try:
            status, _, wait, content = exchange(
                self._http(), "POST", c.endpoint, headers, body, deadline,
                c.max_response_bytes, where, c.timeout,
            )  # fmt: skip
        except Transient:
            raise
        except SystemCallError as exc:  # too large, or another final failure
            raise ProviderError(redact_text(str(exc))) from None
        text = content.decode("utf-8", "replace")
        if status in _RETRY_STATUS:
            raise Transient(f"{where}: HTTP {status}: {_snippet(text)}", retry_after=wait)
        if status >= 400:
            raise ProviderError(f"{where}: HTTP {status}: {_snippet(text)}")
        if status >= 300:
            raise ProviderError(f"{where}: HTTP {status} (redirects are not followed)")
        try:
            return loads(content)
        except ValueError:
            raise ProviderError(f"{where}: the answer is not JSON: {_snippet(text)}") from None

    def _http(self) -> Any:
        import httpx

        with self._lock:
            if self._client is None:
                n = self.config.concurrency
                self._client = httpx.Client(
                    timeout=self.config.timeout,
                    limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
                    transport=self._transport,
                    follow_redirects=False,
                )
            return self._client

    @staticmethod
    def reopen(config: Any, policy: Any, transport: Any = None) -> ChatClient:
        """A client of ``config`` under ``policy``, without a cache, over ``transport``.

        The executors make their rate-limited and remote twins of a client with it
        (they sit below the providers and do not import them).
        """
        return open_client(config, no_cache=True, policy=policy, transport=transport)

    def remember(
        self, messages: list[dict[str, str]], schema: dict | None, sample: int, answer: ChatAnswer
    ) -> None:
        """Cache ``answer``, the answer of a call made elsewhere (an actor on a cluster)."""
        if self.cache is not None:
            self.cache.put(self.key(messages, schema, sample), _to_store(answer))

    def failure(self, reason: str) -> ProviderError:
        """The error of a call of this model that failed for good, saying why."""
        return ProviderError(f"model {self.config.name!r}: {reason}")

    def close(self) -> None:
        """Close the HTTP client and the cache."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _answer(data: Any, config: ModelConfig, latency: float, attempts: int) -> ChatAnswer:
    try:
        choice = data["choices"][0]
        message = choice["message"]
        content = message.get("content")
        refusal = message.get("refusal")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError(
            f"model {config.name!r}: not a chat completion (no choices[0].message)"
        ) from None
    usage = data.get("usage") or {}
    tokens_in = _int(usage.get("prompt_tokens"))
    tokens_out = _int(usage.get("completion_tokens"))
    record = CallRecord(
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        latency=latency,
        cost=config.cost(tokens_in, tokens_out),
        attempts=attempts,
    )
    return ChatAnswer(
        _text(content),
        _text(refusal),
        _text(choice.get("finish_reason")),
        _text(data.get("model")),
        record,
    )


def _text(value: Any) -> str | None:
    """Model content as stored and shown: text, credentials redacted (:mod:`assay.core.redact`)."""
    return redact_text(value) if isinstance(value, str) else None


def _to_store(answer: ChatAnswer) -> dict[str, Any]:
    r = answer.record
    return {
        "content": answer.content,
        "refusal": answer.refusal,
        "finish_reason": answer.finish_reason,
        "model": answer.model,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "latency": r.latency,
        "cost": r.cost,
    }


def _from_store(stored: dict[str, Any]) -> ChatAnswer:
    record = CallRecord(
        input_tokens=_int(stored.get("input_tokens")),
        output_tokens=_int(stored.get("output_tokens")),
        latency=float(stored.get("latency") or 0.0),
        cost=float(stored.get("cost") or 0.0),
        cached=True,
    )
    return ChatAnswer(  # redacted again: a cache written before redaction holds no secret out
        _text(stored.get("content")),
        _text(stored.get("refusal")),
        _text(stored.get("finish_reason")),
        _text(stored.get("model")),
        record,
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text[: limit * 8].split())
    return redact_text(text if len(text) <= limit else text[:limit] + "...")


def parse_json_answer(content: str | None) -> Any:
    """The JSON value of an answer: the whole text, else its first ``{...}`` object.

    Plain-text servers often wrap JSON in prose or a code fence. Raises
    ``ValueError`` when no JSON object is found.
    """
    if content is None:
        raise ValueError("empty answer")
    text = content.strip()
    try:
        return parse_json(text)
    except json.JSONDecodeError:
        pass
    start = text.find("{")
    while start != -1:
        try:
            value, _ = parse_json_at(text, start)
            return value
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    raise ValueError("no JSON object in the answer")


def open_client(
    model: str | ModelConfig,
    *,
    config_path: str | Path | None = None,
    cache_dir: str | Path | None = None,
    offline: bool = False,
    no_cache: bool = False,
    policy: RetryPolicy | None = None,
    transport: Any = None,
) -> ChatClient:
    """The one factory of model clients (judges, ``generate``, the matrix and its judge).

    ``model`` is a ``[models.NAME]`` of ``assay.toml`` (``config_path`` or
    ``./assay.toml``) or a resolved :class:`ModelConfig`. The client reads and
    writes the model-call cache in ``cache_dir`` unless ``no_cache``; ``offline``
    replays the cache only, so it cannot go with ``no_cache``.
    """

    if offline and no_cache:
        raise UsageError("--offline replays the model-call cache: drop --no-cache")
    config = model if isinstance(model, ModelConfig) else get_model(model, config_path)
    cache = None if no_cache else CallCache(cache_dir)
    return ChatClient(config, cache=cache, offline=offline, policy=policy, transport=transport)
