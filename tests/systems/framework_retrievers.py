"""Retrievers built with LangChain, LlamaIndex and Haystack's own components over SciFact.

Not a test module: the framework-system tests name these objects in an
``assay.toml`` (``object = "framework_retrievers.py:NAME"``) and call them
directly too, to compare assay's run with the framework's own ranking. Each
builder takes no argument (the form assay calls) and is cached, so the
framework's index is built once per session. Nothing is downloaded: the
embeddings are deterministic functions of the text (LangChain's
DeterministicFakeEmbedding; a hashed bag of words for LlamaIndex), and
Haystack's telemetry is off.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

#: BEIR SciFact, read in place (the tests skip without it).
SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "beir_scifact"
#: Documents of the slice indexed (the first of the corpus file).
DOCS = 400
#: Test queries asked.
QUERIES = 30


@functools.cache
def corpus() -> list[tuple[str, str]]:
    """``(doc_id, title + text)`` of the first :data:`DOCS` SciFact documents."""
    out = []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            out.append((record["_id"], f"{record.get('title', '')} {record['text']}".strip()))
            if len(out) == DOCS:
                break
    return out


@functools.cache
def queries() -> dict[str, str]:
    """The first :data:`QUERIES` SciFact test queries: ``{query_id: text}``."""
    judged = {
        line.split("\t")[0]
        for line in (SCIFACT / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    }
    out: dict[str, str] = {}
    for line in (SCIFACT / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["_id"] in judged and len(out) < QUERIES:
            out[record["_id"]] = record["text"]
    return out


# -- LangChain ---------------------------------------------------------------


@functools.cache
def langchain_store() -> Any:
    """An InMemoryVectorStore over the slice, DeterministicFakeEmbedding(size=64)."""
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
    store.add_documents(
        [Document(page_content=text, metadata={"doc_id": d}, id=f"lc-{d}") for d, text in corpus()]
    )
    return store


def langchain_retriever() -> Any:
    """The store's retriever (Documents, no scores; k by ``invoke(query, k=...)``)."""
    return langchain_store().as_retriever(search_kwargs={"k": 4})


def langchain_scored() -> Any:
    """A Runnable answering ``(Document, score)`` pairs: similarity_search_with_score."""
    from langchain_core.runnables import RunnableLambda

    store = langchain_store()
    return RunnableLambda(lambda query: store.similarity_search_with_score(query, k=10))


# -- LlamaIndex --------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+")


def hashed_bag(text: str, dim: int = 256) -> list[float]:
    """A bag of words hashed into ``dim`` buckets (a deterministic, meaningful embedding)."""
    vector = [0.0] * dim
    for token in _TOKEN.findall(text.lower()):
        bucket = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "big")
        vector[bucket % dim] += 1.0
    return vector


@functools.cache
def llamaindex_index() -> Any:
    """A VectorStoreIndex over the slice, embedded by a hashed bag of words."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import TextNode

    class HashedBagEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return hashed_bag(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return hashed_bag(text)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return hashed_bag(query)

    nodes = [TextNode(text=text, id_=f"li-{d}", metadata={"doc_id": d}) for d, text in corpus()]
    return VectorStoreIndex(nodes, embed_model=HashedBagEmbedding(model_name="hashed-bag"))


def llamaindex_retriever() -> Any:
    """The index's retriever, top 10."""
    return llamaindex_index().as_retriever(similarity_top_k=10)


def llamaindex_query_engine() -> Any:
    """A query engine (MockLLM: no model) whose source nodes are the top 10."""
    from llama_index.core.llms import MockLLM

    return llamaindex_index().as_query_engine(llm=MockLLM(max_tokens=8), similarity_top_k=10)


# -- Haystack ----------------------------------------------------------------


@functools.cache
def haystack_store() -> Any:
    """An InMemoryDocumentStore holding the slice (BM25 by Haystack)."""
    from haystack import Document
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(
        [Document(id=f"hs-{d}", content=text, meta={"doc_id": d}) for d, text in corpus()]
    )
    return store


def haystack_retriever() -> Any:
    """Haystack's InMemoryBM25Retriever over the store."""
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    return InMemoryBM25Retriever(document_store=haystack_store())


def haystack_pipeline() -> Any:
    """A Pipeline holding the BM25 retriever."""
    from haystack import Pipeline

    pipeline = Pipeline()
    pipeline.add_component("retriever", haystack_retriever())
    return pipeline


def haystack_two_retrievers() -> Any:
    """A Pipeline with two retrievers side by side: which documents rank is a choice."""
    from haystack import Pipeline

    pipeline = Pipeline()
    pipeline.add_component("first", haystack_retriever())
    pipeline.add_component("second", haystack_retriever())
    return pipeline
