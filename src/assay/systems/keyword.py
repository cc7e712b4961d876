"""The keyword baseline: TF-IDF cosine over a corpus's text fields.

The same kind of baseline as a plain "score my catalog" script: scikit-learn's
``TfidfVectorizer`` (lowercase, Unicode word tokens ``\\w+``, smooth idf, l2
norm), cosine similarity, records that share no term with the query left out,
ties broken by corpus order. It needs no model and no network, so every suite
can run it as a floor that any real search has to beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.corpora.models import Corpus
from assay.systems.base import Hit
from assay.systems.schema import KeywordTable

#: Unicode word tokens: words in any script, digits included.
TOKEN_PATTERN = r"(?u)\w+"


class KeywordSystem:
    """TF-IDF cosine search over ``corpus`` (see the module docstring).

    ``text_fields`` defaults to the corpus's text fields. Scores are cosine
    similarities in (0, 1]; documents scoring 0 are never returned.
    """

    def __init__(
        self,
        corpus: Corpus,
        text_fields: Sequence[str] | None = None,
        name: str = "keyword",
    ) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.name = name
        self.corpus = corpus
        self.text_fields: tuple[str, ...] = tuple(
            corpus.text_fields if text_fields is None else text_fields
        )
        if not self.text_fields:
            raise UsageError(f"system {name!r}: no text fields to index in {corpus.name}")
        texts = corpus.texts(self.text_fields)
        self._vectorizer = TfidfVectorizer(token_pattern=TOKEN_PATTERN, lowercase=True)
        try:
            self._matrix = self._vectorizer.fit_transform(texts).tocsr()
        except ValueError as exc:  # empty vocabulary
            raise UsageError(
                f"system {name!r}: the fields {', '.join(self.text_fields)} of "
                f"{corpus.path or corpus.name} hold no words ({exc})"
            ) from None
        self._matrix_t = self._matrix.T.tocsr()

    @property
    def config(self) -> dict[str, Any]:
        """JSON-able settings that decide the ranking (the corpus is versioned apart)."""
        return {
            "type": "keyword",
            "model": "tfidf-cosine",
            "text_fields": list(self.text_fields),
            "id_field": self.corpus.id_field,
            "token_pattern": TOKEN_PATTERN,
            "lowercase": True,
            "smooth_idf": True,
            "norm": "l2",
        }

    def search(self, query: str, k: int) -> list[Hit]:
        """Up to ``k`` documents sharing a term with ``query``, best first."""
        import numpy as np

        if k < 1:
            return []
        q = self._vectorizer.transform([query])
        if q.nnz == 0:
            return []
        scores = np.asarray((q @ self._matrix_t).todense()).ravel()
        candidates = np.flatnonzero(scores > 0)
        if candidates.size == 0:
            return []
        # Stable sort on -score keeps corpus order among equal scores.
        order = candidates[np.argsort(-scores[candidates], kind="stable")][:k]
        ids = self.corpus.ids
        return [Hit(ids[i], float(scores[i])) for i in order]

    def __repr__(self) -> str:
        return f"KeywordSystem({self.name!r}, docs={len(self.corpus)}, fields={self.text_fields})"


def from_config(
    name: str, table: KeywordTable, *, corpus: Corpus | None, base_dir: Path
) -> KeywordSystem:
    """Registry factory: ``[systems.NAME]`` with ``type = "keyword"``. Needs a corpus."""
    if corpus is None:
        raise UsageError(
            f'system {name!r} (type keyword) needs a corpus: set corpus = "..." in its '
            "table or pass --corpus"
        )
    fields = table.text_fields
    return KeywordSystem(
        corpus, text_fields=[fields] if isinstance(fields, str) else fields, name=name
    )
