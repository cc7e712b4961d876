"""OpenSearch / Elasticsearch ``_search`` as a system under test: an HttpSystem preset.

Declared in ``assay.toml`` as ``type = "opensearch"`` (or ``"elasticsearch"``);
:func:`from_config` builds it through :func:`opensearch_system`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.systems.http import HttpSystem, remote_options
from assay.systems.http_checks import bad
from assay.systems.schema import OpenSearchTable


def opensearch_system(
    name: str,
    *,
    url: str,
    index: str,
    fields: list[str] | None = None,
    query: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    type_: str = "opensearch",
    **options: Any,
) -> HttpSystem:
    """An :class:`HttpSystem` preset for OpenSearch / Elasticsearch ``_search``.

    ``query`` is the Query DSL clause (the ``query`` member of the request body)
    with ``"{query}"`` placeholders; by default a ``multi_match`` over ``fields``.
    The body asks for ``size: k`` and no ``_source``; hits come from ``hits.hits``,
    ids from ``_id`` and scores from ``_score``. ``options`` go to
    :class:`HttpSystem` (timeout, retries, backoff, concurrency).
    """
    if not isinstance(url, str) or not url.strip():
        raise bad(name, "url", "must be the cluster URL, e.g. http://localhost:9200")
    if not isinstance(index, str) or not index.strip() or "/" in index:
        raise bad(name, "index", f"must be an index name (or pattern), got {index!r}")
    if query is None:
        if (
            not fields
            or not isinstance(fields, list)
            or not all(isinstance(f, str) for f in fields)
        ):
            raise bad(
                name,
                "fields",
                "must list the fields to search when no query template is given",
                'e.g. fields = ["title^2", "body"]',
            )
        clause: Any = {"multi_match": {"query": "{query}", "fields": list(fields)}}
    else:
        if not isinstance(query, Mapping):
            raise bad(name, "query", "must be a Query DSL object (a TOML inline table)")
        if "{query}" not in json.dumps(query):
            raise bad(name, "query", 'has no "{query}" placeholder')
        clause = dict(query)
    body = {"size": "{k}", "_source": False, "query": clause}
    return HttpSystem(
        name,
        url=f"{url.strip().rstrip('/')}/{index.strip()}/_search",
        method="POST",
        body=body,
        headers=headers,
        hits_path="hits.hits",
        id_path="_id",
        score_path="_score",
        type_=type_,
        **options,
    )


#: The registry passes ``${VAR}`` through unresolved: :class:`HttpSystem` reads it per call.
RESOLVES_ENV = True


def from_config(name: str, table: OpenSearchTable, *, corpus: Any, base_dir: Path) -> HttpSystem:
    """Build the preset from a checked ``type = "opensearch"`` (or elasticsearch) table."""
    del corpus, base_dir
    return opensearch_system(
        name,
        url=table.url,
        index=table.index,
        fields=table.fields,
        query=table.query,
        headers=table.headers,
        type_=table.type,
        **remote_options(table),
    )
