"""The HTTP recipes of docs/stack.md, each against a loopback stub of its engine.

The tables are read from the page itself (so the documented configuration is the
tested one). The stub answers each engine's search request in the response shape
that engine documents (Elasticsearch ``hits.hits``, Vespa ``root.children``, Qdrant
``result.points``, Weaviate GraphQL ``data.Get``, Typesense ``hits[].document``,
Meilisearch ``hits``), checks the request the recipe sends (path, method, the key
header, where the query text and k go) and ranks a small corpus by word overlap.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from assay.systems.base import Hit
from assay.systems.config import build_system
from assay.systems.server import serve_in_thread

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ("elasticsearch", "vespa", "qdrant", "weaviate", "typesense", "meilisearch")
KEY = "stub-key-0123456789"
DOCS = {
    "d1": "unemployment rate of the labour force",
    "d2": "youth unemployment rate",
    "d3": "child mortality under five",
    "d4": "primary school enrolment",
}


def _docblocks() -> Any:
    """tests/docs/docblocks.py: the one reader of the pages' fenced blocks."""
    if "docblocks" in sys.modules:
        return sys.modules["docblocks"]
    spec = importlib.util.spec_from_file_location("docblocks", ROOT / "tests/docs/docblocks.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["docblocks"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def recipes() -> dict[str, str]:
    """``{engine: TOML text}``: the page's toml blocks that declare one of :data:`ENGINES`."""
    out: dict[str, str] = {}
    for block in _docblocks().blocks(ROOT / "docs" / "stack.md"):
        if block.lang == "toml":
            names = list(tomllib.loads(block.body).get("systems", {}))
            if len(names) == 1 and names[0] in ENGINES:
                out[names[0]] = block.body
    return out


def ranked(query: str, k: int) -> list[tuple[str, float]]:
    """The stub's ranking: query words found in the document, ties by id."""
    words = set(re.findall(r"\w+", query.lower()))
    scored = [(d, float(len(words & set(text.split())))) for d, text in DOCS.items()]
    return sorted((p for p in scored if p[1] > 0), key=lambda p: (-p[1], p[0]))[:k]


def _checked(request: Request, header: str, value: str) -> None:
    if request.headers.get(header) != value:
        raise ValueError(f"{header} header is {request.headers.get(header)!r}")


def stub_app(seen: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()

    @app.exception_handler(ValueError)
    async def refused(_request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.post("/docs/_search")
    async def elasticsearch(request: Request) -> Any:
        _checked(request, "authorization", f"ApiKey {KEY}")
        body = await request.json()
        query, k = body["query"]["multi_match"]["query"], body["size"]
        seen.append({"engine": "elasticsearch", "query": query, "k": k})
        hits = [
            {"_index": "docs", "_id": d, "_score": s, "_ignored": []} for d, s in ranked(query, k)
        ]
        total = {"value": len(hits), "relation": "eq"}
        top = hits[0]["_score"] if hits else None
        shards = {"total": 1, "successful": 1, "skipped": 0, "failed": 0}
        return {
            "took": 1,
            "timed_out": False,
            "_shards": shards,
            "hits": {"total": total, "max_score": top, "hits": hits},
        }

    @app.post("/search/")
    async def vespa(request: Request) -> Any:
        body = await request.json()
        if "userQuery()" not in body["yql"]:
            raise ValueError("yql without userQuery()")
        query, k = body["query"], body["hits"]
        seen.append({"engine": "vespa", "query": query, "k": k})
        children = [
            {
                "id": f"id:docs:doc::{d}",
                "relevance": s,
                "source": "docs",
                "fields": {"sddocname": "doc", "doc_id": d},
            }
            for d, s in ranked(query, k)
        ]
        coverage = {
            "coverage": 100,
            "documents": len(DOCS),
            "full": True,
            "nodes": 1,
            "results": 1,
            "resultsFull": 1,
        }
        root: dict[str, Any] = {
            "id": "toplevel",
            "relevance": 1.0,
            "fields": {"totalCount": len(children)},
            "coverage": coverage,
        }
        if children:  # Vespa leaves the key out when nothing matched
            root["children"] = children
        return {"root": root}

    @app.post("/collections/docs/points/query")
    async def qdrant(request: Request) -> Any:
        _checked(request, "api-key", KEY)
        body = await request.json()
        if body["query"]["model"] != "qdrant/bm25" or body["using"] != "bm25":
            raise ValueError("not a server-side BM25 query")
        query, k = body["query"]["text"], body["limit"]
        seen.append({"engine": "qdrant", "query": query, "k": k})
        points = [
            {"id": n, "version": 3, "score": s, "payload": {"doc_id": d}}
            for n, (d, s) in enumerate(ranked(query, k), start=101)
        ]
        return {"result": {"points": points}, "status": "ok", "time": 0.000213}

    @app.post("/v1/graphql")
    async def weaviate(request: Request) -> Any:
        _checked(request, "authorization", f"Bearer {KEY}")
        body = await request.json()
        limit = re.search(r"limit: (\d+)\)", body["query"])
        if limit is None or "bm25: {query: $q}" not in body["query"]:
            raise ValueError(f"unexpected GraphQL: {body['query']}")
        query, k = body["variables"]["q"], int(limit[1])
        seen.append({"engine": "weaviate", "query": query, "k": k})
        found = [{"doc_id": d, "_additional": {"score": str(s)}} for d, s in ranked(query, k)]
        return {"data": {"Get": {"Document": found}}}

    @app.get("/collections/docs/documents/search")
    async def typesense(request: Request) -> Any:
        _checked(request, "x-typesense-api-key", KEY)
        params = request.query_params
        query, k = params["q"], int(params["per_page"])
        seen.append({"engine": "typesense", "query": query, "k": k, "query_by": params["query_by"]})
        hits = [
            {
                "document": {"id": d},
                "highlight": {},
                "highlights": [],
                "text_match": int(s * 10**15),
                "text_match_info": {
                    "best_field_score": "1108091338752",
                    "fields_matched": 1,
                    "tokens_matched": int(s),
                },
            }
            for d, s in ranked(query, k)
        ]
        request_params = {"collection_name": "docs", "per_page": k, "q": query}
        return {
            "facet_counts": [],
            "found": len(hits),
            "hits": hits,
            "out_of": len(DOCS),
            "page": 1,
            "request_params": request_params,
            "search_cutoff": False,
            "search_time_ms": 0,
        }

    @app.post("/indexes/docs/search")
    async def meilisearch(request: Request) -> Any:
        _checked(request, "authorization", f"Bearer {KEY}")
        body = await request.json()
        if body.get("showRankingScore") is not True:
            raise ValueError("showRankingScore is not on")
        query, k = body["q"], body["limit"]
        seen.append({"engine": "meilisearch", "query": query, "k": k})
        hits = [{"id": d, "_rankingScore": s / 10} for d, s in ranked(query, k)]
        return {
            "hits": hits,
            "query": query,
            "processingTimeMs": 0,
            "limit": k,
            "offset": 0,
            "estimatedTotalHits": len(hits),
        }

    return app


@pytest.fixture(scope="module")
def stub() -> Any:
    seen: list[dict[str, Any]] = []
    with serve_in_thread(stub_app(seen)) as url:
        yield url, seen


def test_every_engine_has_a_recipe() -> None:
    assert sorted(recipes()) == sorted(ENGINES)


@pytest.mark.parametrize("engine", ENGINES)
def test_recipe_reads_the_engines_answer(
    engine: str, stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = stub
    for var in ("ES_URL", "VESPA_URL", "QDRANT_URL", "WEAVIATE_URL", "TYPESENSE_URL", "MEILI_URL"):
        monkeypatch.setenv(var, url)
    for var in (
        "ES_API_KEY",
        "QDRANT_API_KEY",
        "WEAVIATE_API_KEY",
        "TYPESENSE_API_KEY",
        "MEILI_API_KEY",
    ):
        monkeypatch.setenv(var, KEY)
    config = tmp_path / "assay.toml"
    config.write_text(recipes()[engine], encoding="utf-8")
    system = build_system(engine, config_path=config)
    query = 'youth "unemployment" rate & more'  # quotes and & reach the engine unchanged
    seen.clear()
    hits = system.search(query, 2)
    assert seen == [seen[0]] and seen[0]["engine"] == engine
    assert (seen[0]["query"], seen[0]["k"]) == (query, 2)
    expected = ranked(query, 2)
    assert [h.doc_id for h in hits] == [d for d, _ in expected]
    assert all(isinstance(h, Hit) and h.score is not None for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    seen.clear()
    assert system.search("nothing matches this", 5) == []  # no hits is an empty list
    assert KEY not in repr(system.config)
