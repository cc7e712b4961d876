"""Helpers shared by the built-in baselines: corpus access and the text_fields option."""

from __future__ import annotations

from typing import Any

from assay.core.bounds import at_least
from assay.core.errors import UsageError


def corpus_documents(corpus: Any, text_fields: list[str] | None) -> tuple[list[str], list[str]]:
    """``(doc_ids, texts)`` of a corpus, texts built from ``text_fields`` (None: its default).

    Accepts any object with ``.ids`` and ``.texts(fields=None)`` (an
    :class:`assay.corpora.Corpus`). Raises :class:`UsageError` when the corpus is
    missing, empty or inconsistent.
    """
    if corpus is None:
        raise UsageError("this system needs a corpus: set [corpus] in assay.toml or pass one")
    ids = [str(i) for i in corpus.ids]
    texts = corpus.texts(text_fields) if text_fields else corpus.texts()
    texts = ["" if t is None else str(t) for t in texts]
    if not ids:
        raise UsageError("the corpus holds no documents")
    if len(ids) != len(texts):
        raise UsageError(f"the corpus gave {len(ids)} ids but {len(texts)} texts")
    return ids, texts


def corpus_version(corpus: Any) -> str:
    """The corpus content version (str), used in cache keys and configs."""
    return str(getattr(corpus, "version", "unknown"))


def fields_option(name: str, value: Any) -> list[str] | None:
    """Validate a ``text_fields`` option: None or a non-empty list of strings."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise UsageError(f"[systems.{name}].text_fields must be a list of field names")
    return list(value)


def check_k(k: int) -> None:
    """Reject a search depth below 1."""
    at_least("k", k)
