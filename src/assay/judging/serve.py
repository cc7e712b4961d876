"""Open a judging store and build the judging application from a pool (one path for the CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.corpora import load_corpus
from assay.judging.pool import read_pool
from assay.judging.review import read_review
from assay.judging.store import JudgingStore
from assay.judging.web import create_app, login_links


def open_store(url: str, *, must_exist: bool = False) -> JudgingStore:
    """The judging store at ``url`` (a SQLite path or an SQLAlchemy URL).

    With ``must_exist`` a SQLite file that is not there is an error rather
    than a new empty store.
    """
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
    if must_exist and "://" not in path and not Path(path).is_file():
        raise UsageError(f"--store {url}: no such judging store (assay judge serve creates it)")
    return JudgingStore(url)


def prepare(
    pool: str | Path | None,
    store_url: str,
    *,
    assessors: Sequence[str],
    overlap: int = 1,
    adjudicators: Sequence[str] = (),
    guidelines: str | Path | None = None,
    corpus: str | Path | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
    base_url: str = "http://127.0.0.1:8765",
    review: str | Path | None = None,
    show_model_grades: bool = False,
) -> tuple[Any, dict[str, str]]:
    """Load the pool (or the ``review`` file) into the store; return the app and login links.

    Documents come from ``corpus`` (CSV, JSONL, BEIR, by :func:`assay.corpora.load_corpus`)
    when given (only its ``text_fields`` when named), else from the pool lines'
    ``document`` field. With ``review``
    (the items of a review sample) each model-graded item is shown blind, or
    with the model's grade when ``show_model_grades``.
    """

    if (pool is None) == (review is None):
        raise UsageError("give a POOL file or --review REVIEW.jsonl (one of them)")
    items = read_review(review) if review is not None else []
    pairs = [i.pair for i in items] if review is not None else read_pool(str(pool))
    text = ""
    if guidelines is not None:
        g = Path(guidelines)
        if not g.is_file():
            raise UsageError(f"--guidelines {g}: no such file")
        text = g.read_text(encoding="utf-8")
    documents: Any = None
    if corpus is not None:
        loaded = load_corpus(corpus, id_field=id_field, text_fields=text_fields)
        shown = set(text_fields or ())

        def documents(doc_id: str) -> dict[str, Any] | None:
            record = loaded.get(doc_id)
            if record is None:
                return None
            return {
                k: v
                for k, v in record.items()
                if k != loaded.id_field and (not shown or k in shown)
            }

    store = open_store(store_url)
    store.setup(pairs, assessors, overlap, adjudicators)
    if review is not None:
        store.add_review(items, show_model_grades)
    app = create_app(store, guidelines=text, documents=documents)
    return app, login_links(store, base_url)
