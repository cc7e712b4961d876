"""The OpenSearch / Elasticsearch preset against a fake cluster on loopback.

The fake answers ``POST /{index}/_search`` in the real response shape
(tests/data/systems/http/opensearch_search_response.json) and records the
request body and headers, so the test checks what the preset sends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _tables import table_factory
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from assay.core.errors import UsageError
from assay.systems.base import Hit
from assay.systems.opensearch import opensearch_system
from assay.systems.server import serve_in_thread

from_config = table_factory("opensearch")

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def cluster(data_dir: Path) -> Any:
    answer = json.loads((data_dir / "systems/http/opensearch_search_response.json").read_text())
    seen: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/{index}/_search")
    async def search(index: str, request: Request) -> Any:
        body = json.loads(await request.body())
        seen.append({"index": index, "body": body, "headers": dict(request.headers)})
        if index != "catalog":
            error = {"type": "index_not_found_exception", "reason": f"no such index [{index}]"}
            return JSONResponse({"error": error, "status": 404}, status_code=404)
        out = json.loads(json.dumps(answer))
        out["hits"]["hits"] = out["hits"]["hits"][: body.get("size", 10)]
        return out

    with serve_in_thread(app) as url:
        yield url, seen


def test_default_multi_match_body_and_parsing(cluster: Any, tmp_path: Path) -> None:
    url, seen = cluster
    seen.clear()
    table = {
        "type": "opensearch",
        "url": url + "/",
        "index": "catalog",
        "fields": ["name^2", "def"],
    }
    system = from_config("os", table, corpus=None, base_dir=tmp_path)
    query = 'children "out of school"'
    hits = system.search(query, 2)
    assert hits == [Hit("FS_UNDERNOURISH_PCT", 4.2817264), Hit("SH_STUNTING_PCT", 2.0460312)]
    assert seen[0]["index"] == "catalog"
    assert seen[0]["body"] == {
        "size": 2,
        "_source": False,
        "query": {"multi_match": {"query": query, "fields": ["name^2", "def"]}},
    }
    assert seen[0]["headers"]["content-type"] == "application/json"
    assert system.config["url"] == f"{url}/catalog/_search"
    assert system.config["method"] == "POST"


def test_numeric_ids_are_strings(cluster: Any) -> None:
    url, _ = cluster
    system = opensearch_system("os", url=url, index="catalog", fields=["name"])
    assert [h.doc_id for h in system.search("x", 10)] == [
        "FS_UNDERNOURISH_PCT",
        "SH_STUNTING_PCT",
        "42",
    ]


def test_custom_query_template_and_auth_from_env(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = cluster
    seen.clear()
    monkeypatch.setenv("ASSAY_TEST_OS_AUTH", "ApiKey c2VjcmV0")
    table = {
        "type": "elasticsearch",
        "url": url,
        "index": "catalog",
        "query": {"match": {"name": {"query": "{query}", "operator": "and"}}},
        "headers": {"Authorization": "${ASSAY_TEST_OS_AUTH}"},
        "timeout": 5.0,
    }
    system = from_config("es", table, corpus=None, base_dir=tmp_path)
    assert len(system.search("food", 1)) == 1
    assert seen[0]["body"]["query"] == {"match": {"name": {"query": "food", "operator": "and"}}}
    assert seen[0]["body"]["size"] == 1
    assert seen[0]["headers"]["authorization"] == "ApiKey c2VjcmV0"
    assert "c2VjcmV0" not in json.dumps(system.config)
    assert system.config["type"] == "elasticsearch"


def test_missing_index_is_a_clear_error(cluster: Any) -> None:
    from assay.systems.base import SystemError_

    url, _ = cluster
    system = opensearch_system("os", url=url, index="nope", fields=["name"], retries=3)
    with pytest.raises(SystemError_, match=r"HTTP 404.*index_not_found_exception"):
        system.search("x", 3)


@pytest.mark.parametrize(
    ("table", "pattern"),
    [
        ({"url": "http://h:9200", "index": "i"}, "fields must list"),
        ({"url": "http://h:9200", "fields": ["a"]}, "index: is required"),
        ({"url": "http://h:9200", "index": "i", "query": {"match_all": {}}}, 'no "{query}"'),
        ({"url": "http://h:9200", "index": "a/b", "fields": ["a"]}, "index must be"),
        ({"url": "http://h:9200", "index": "i", "fields": ["a"], "size": 3}, "unknown key"),
    ],
)
def test_bad_opensearch_tables(table: dict[str, Any], pattern: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=pattern):
        from_config("os", {"type": "opensearch", **table}, corpus=None, base_dir=tmp_path)
