"""The BM25 baseline: bm25s over a corpus, with PyStemmer stemming and stopword removal.

Defaults reproduce the usual Lucene/Anserini "flat" BM25 baseline (k1=0.9,
b=0.4, Lucene's IDF and length normalisation, English stemming, English
stopwords), which scores nDCG@10 = 0.679 on BEIR SciFact; this implementation
stays within 0.01 of it (see tests/systems/test_bm25_scifact.py).

The index is built on the first search (or by :meth:`BM25System.prepare`) and
kept in memory for the life of the instance. It is also saved on disk, keyed by
the corpus version and every setting that changes it (see :attr:`BM25System.config`),
under ``$ASSAY_CACHE_DIR/bm25`` (``.assay/cache/bm25``), so another process over
the same corpus loads it instead of building it again (``cache=False``: never).

Only documents that share at least one term with the query are returned, so a
list may be shorter than ``k``; equal scores are ordered by corpus position.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.core.progress import progress
from assay.io.cachedir import cache_subdir
from assay.systems._corpus import check_k, corpus_documents, corpus_version, fields_option
from assay.systems.base import Hit, config_hash
from assay.systems.schema import BM25_METHODS, BM25Table

_CHUNK = 2000


def _stemmer(name: str | None) -> Any:
    """A PyStemmer stemmer for language ``name`` (None: no stemming)."""
    if name is None:
        return None
    import Stemmer

    if name not in Stemmer.algorithms():
        raise UsageError(
            f"unknown stemmer {name!r} (PyStemmer knows: {', '.join(Stemmer.algorithms())})"
        )
    return Stemmer.Stemmer(name)


def _stopwords(value: str | Sequence[str] | None) -> list[str]:
    """The stopword list for a language code or name, a list as given, or none."""
    from bm25s.tokenization import _infer_stopwords

    if value is None:
        return []
    if isinstance(value, str):
        try:
            return list(_infer_stopwords(value))
        except ValueError as exc:
            raise UsageError(
                f"unknown stopwords {value!r}: give a language code such as 'en', a list of "
                "words, or none"
            ) from exc
    words = list(value)
    if not all(isinstance(w, str) for w in words):
        raise UsageError("stopwords must be a language code or a list of strings")
    return words


#: The last corpus tokenized (corpus version, fields, stemmer, stop words) -> its tokens:
#: BM25 indexes of one corpus that differ only in k1, b or the variant (``assay tune``)
#: tokenize it once.
_TOKENS: dict[tuple[str | None, str, Any, str], list[list[str]]] = {}


class BM25System:
    """BM25 ranking of a corpus with bm25s (Lucene variant by default).

    ``search(query, k)`` returns up to ``k`` :class:`Hit` objects with BM25
    scores; ``search_many(queries, k)`` does the same for many queries in one
    vectorised pass and is what a runner should call when it is present.
    """

    def __init__(
        self,
        corpus: Any,
        *,
        k1: float = 0.9,
        b: float = 0.4,
        method: str = "lucene",
        stemmer: str | None = "english",
        stopwords: str | Sequence[str] | None = "en",
        text_fields: list[str] | None = None,
        name: str = "bm25",
        cache: bool = True,
        cache_dir: str | Path | None = None,
    ) -> None:
        if method not in BM25_METHODS:
            raise UsageError(
                f"unknown BM25 method {method!r} (choose one of {', '.join(BM25_METHODS)})"
            )
        for label, value in (("k1", k1), ("b", b)):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= 1000  # also refuses nan and inf
            ):
                raise UsageError(f"BM25 {label} must be a finite number >= 0, got {value!r}")
        if b > 1:
            raise UsageError(f"BM25 b must lie in [0, 1], got {b!r}")
        self.name = name
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.stemmer_name = stemmer
        self._stemmer = _stemmer(stemmer)
        self.stopwords_spec = (
            stopwords if stopwords is None or isinstance(stopwords, str) else list(stopwords)
        )
        self._stopwords = _stopwords(stopwords)
        self.text_fields = None if text_fields is None else list(text_fields)
        self._corpus = corpus
        self._doc_ids, self._texts = corpus_documents(corpus, self.text_fields)
        self._version = corpus_version(corpus)
        self._index: Any = None
        self.cache_dir: Path | None = None
        if cache:
            self.cache_dir = Path(cache_dir) if cache_dir is not None else cache_subdir("bm25")
        self.loaded_from_cache = False

    @property
    def config(self) -> dict[str, Any]:
        """Every parameter that changes the ranking, plus the corpus version."""
        return {
            "type": "bm25",
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "stemmer": self.stemmer_name,
            "stopwords": self.stopwords_spec,
            "text_fields": self.text_fields,
            "corpus_version": self._version,
            "engine": f"bm25s-{_version('bm25s')}",
        }

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        import bm25s

        return bm25s.tokenize(
            texts,
            stopwords=self._stopwords,
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )

    @property
    def cache_path(self) -> Path | None:
        """Folder of this index in the on-disk cache (None: not cached)."""
        if self.cache_dir is None:
            return None

        return self.cache_dir / config_hash(self.config).split(":")[-1][:32]

    def prepare(self) -> BM25System:
        """Load the index from the cache or build it now (otherwise the first search
        does); returns self."""
        if self._index is None:
            self._index = self._load_cached()
            self.loaded_from_cache = self._index is not None
            if self._index is None:
                self._index = self._build()
                self._save_cached(self._index)
            self._texts = []  # the index holds all it needs
        return self

    def _build(self) -> Any:
        import bm25s

        key = (self._version, repr(self.text_fields), self.stemmer_name, repr(self.stopwords_spec))
        tokens: list[list[str]] = _TOKENS.get(key, [])
        texts = self._texts
        if not tokens:
            with progress(f"{self.name}: indexing", total=len(texts), unit="docs") as tick:
                for start in range(0, len(texts), _CHUNK):
                    tokens += self._tokenize(texts[start : start + _CHUNK])
                    tick(min(_CHUNK, len(texts) - start))
            _TOKENS.clear()  # one corpus kept: the one a tuning run indexes again and again
            _TOKENS[key] = tokens
        if not any(len(doc) for doc in tokens):
            raise UsageError(
                f"BM25 system {self.name!r}: every document of the corpus is empty or only "
                "stop words, so there is nothing to index (check --text-field and the corpus)"
            )
        index = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        index.index(tokens, show_progress=False)
        return index

    def _load_cached(self) -> Any:
        path = self.cache_path
        if path is None or not (path / "params.index.json").is_file():
            return None
        import bm25s

        try:
            return bm25s.BM25.load(str(path), load_corpus=False, mmap=False)
        except Exception:  # an unreadable entry is a miss; the index is built again
            return None

    def _save_cached(self, index: Any) -> None:
        """Save ``index`` into a temporary folder renamed into place (atomic, race-safe)."""
        path = self.cache_path
        if path is None:
            return
        import shutil
        import tempfile

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent)
            index.save(tmp)
            try:
                Path(tmp).rename(path)
            except OSError:  # another process saved it first
                shutil.rmtree(tmp, ignore_errors=True)
        except OSError:  # a read-only cache only costs a rebuild next time
            return

    def search(self, query: str, k: int) -> list[Hit]:
        """The top ``k`` documents for one query text."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """The top ``k`` documents for each query, in query order (one list per query)."""
        import numpy as np

        check_k(k)
        self.prepare()
        index = self._index
        vocab = index.vocab_dict
        tokens = [[t for t in toks if t in vocab] for toks in self._tokenize(list(queries))]
        results: list[list[Hit]] = [[] for _ in tokens]
        todo = [i for i, toks in enumerate(tokens) if toks]
        if not todo:
            return results
        depth = min(k, len(self._doc_ids))
        docs, scores = index.retrieve(
            [tokens[i] for i in todo], k=depth, show_progress=False, sorted=True
        )
        for row, qi in enumerate(todo):
            d, s = docs[row], scores[row]
            keep = s > 0
            d, s = d[keep], s[keep]
            order = np.lexsort((d, -s))  # score desc, then corpus position
            results[qi] = [Hit(self._doc_ids[int(d[j])], float(s[j])) for j in order]
        return results

    def __repr__(self) -> str:
        return f"BM25System({self.name!r}, k1={self.k1}, b={self.b}, method={self.method!r})"


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def from_config(name: str, table: BM25Table, *, corpus: Any, base_dir: Path) -> BM25System:
    """Build a :class:`BM25System` from a checked ``[systems.NAME]`` table of assay.toml.

    ``stemmer`` and ``stopwords`` ``"none"`` (or false) turn them off; ``cache_dir``
    is relative to ``base_dir`` (``"none"``: no on-disk index).
    """
    kwargs: dict[str, Any] = {"name": name, "k1": table.k1, "b": table.b, "method": table.method}
    if "cache_dir" in table.model_fields_set:
        kwargs["cache"] = table.cache_dir not in (None, "none", "", False)
        if kwargs["cache"]:
            kwargs["cache_dir"] = Path(base_dir) / str(table.cache_dir)
    for key in ("stemmer", "stopwords"):
        value = getattr(table, key)
        kwargs[key] = None if value in ("none", "", False) else value
    kwargs["text_fields"] = fields_option(name, table.text_fields)
    return BM25System(corpus, **kwargs)
