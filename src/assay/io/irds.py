"""ir_datasets names: ``irds:beir/scifact/test`` wherever judgments, queries or a corpus are read.

With the ``ir_datasets`` package installed (``pip install 'assay[irds]'``), a path
that starts with ``irds:`` names a dataset of its catalogue: its qrels and queries
are a judgment set (:func:`assay.load_judgments`), its queries a queries file
(``--queries``), its documents a corpus (``--corpus``; by default the corpus of
judgments given by name). Only the user's local ir_datasets cache is read
(``$IR_DATASETS_HOME``, by default ``~/.ir_datasets``): assay never downloads. A
dataset whose files are not in the cache is an error saying how to fetch it once
with ir_datasets itself.

This module only turns a dataset into plain rows; the judgment and corpus
readers validate them by the same rules as files.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from assay.core.errors import UsageError

PREFIX = "irds:"
_LOCK = threading.Lock()


def is_irds(path: object) -> bool:
    """True when ``path`` names an ir_datasets dataset (``irds:NAME``)."""
    return str(path).startswith(PREFIX)


def dataset_name(path: object) -> str:
    """``beir/scifact/test`` for ``irds:beir/scifact/test``."""
    return str(path)[len(PREFIX) :].strip("/")


def load(path: object, *, needs: str) -> Any:
    """The ir_datasets dataset ``path`` names; ``needs`` (qrels, queries, docs) must be there."""
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(
            f"{path}: reading ir_datasets names needs the ir_datasets package "
            "(pip install 'assay[irds]')"
        ) from None
    name = dataset_name(path)
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise UsageError(
            f"{path}: ir_datasets has no dataset {name!r} (list them with `ir_datasets list`)"
        ) from None
    if not getattr(dataset, f"has_{needs}")():
        raise UsageError(f"{path}: the ir_datasets dataset {name!r} has no {needs}")
    return dataset


@contextmanager
def cached_only(path: object) -> Iterator[None]:
    """Read ir_datasets files from the local cache only: a download is refused, named."""
    from ir_datasets.util.download import Download, LocalDownload

    original = Download.path

    def local_path(self: Any, force: bool = True) -> Any:
        cache = getattr(self, "_cache_path", None)
        local = [m for m in self.mirrors if isinstance(m, LocalDownload)]
        on_disk = (cache is not None and os.path.exists(cache)) or any(
            os.path.exists(getattr(m, "_path", "")) for m in local
        )
        if self._path is None and force and not on_disk:
            home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
            raise UsageError(
                f"{path}: not in the local ir_datasets cache ({home}); assay does not "
                f"download: fetch it once with ir_datasets (for example `ir_datasets export "
                f"{dataset_name(path)} qrels > /dev/null`), then run again"
            )
        return original(self, force)

    import logging

    with _LOCK:
        before = logging.root.manager.disable
        Download.path = local_path  # type: ignore[method-assign]
        logging.disable(logging.INFO)  # ir_datasets' progress lines are not assay's output
        try:
            yield
        finally:
            Download.path = original  # type: ignore[method-assign]
            logging.disable(before)


def qrels_bytes(path: object) -> bytes:
    """The dataset's qrels as TREC qrels lines (``qid iteration docid grade``)."""
    dataset = load(path, needs="qrels")
    with cached_only(path):
        lines = [
            f"{q.query_id} {q.iteration or 0} {q.doc_id} {q.relevance}\n"
            for q in dataset.qrels_iter()
        ]
    return "".join(lines).encode("utf-8")


def query_texts(path: object) -> dict[str, tuple[str, int]]:
    """``{query_id: (text, position)}`` of the dataset's queries (as a queries file reads)."""
    dataset = load(path, needs="queries")
    out: dict[str, tuple[str, int]] = {}
    with cached_only(path):
        for number, query in enumerate(dataset.queries_iter(), start=1):
            out.setdefault(str(query.query_id), (_text(query), number))
    return out


def doc_rows(path: object) -> list[tuple[int, dict[str, Any]]]:
    """The dataset's documents as ``(position, record)`` rows, as a JSONL corpus reads."""
    dataset = load(path, needs="docs")
    with cached_only(path):
        return [(n, _record(doc)) for n, doc in enumerate(dataset.docs_iter(), start=1)]


def _text(query: Any) -> str:
    """A query's text: ir_datasets' own choice (``default_text``), else its ``text`` field."""
    if callable(getattr(query, "default_text", None)):
        return str(query.default_text())
    return str(getattr(query, "text", ""))


def _record(doc: Any) -> dict[str, Any]:
    """A document as a JSON-like record: its fields, strings kept, other values as text."""
    fields = doc._asdict() if hasattr(doc, "_asdict") else dict(vars(doc))
    return {k: v if isinstance(v, str) or v is None else str(v) for k, v in fields.items()}
