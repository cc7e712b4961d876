"""HTTP and OpenSearch systems declared in an assay.toml, built by the registry."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request

from assay.systems.base import Hit
from assay.systems.server import serve_in_thread

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(
        importlib.util.find_spec("assay.systems.config") is None,
        reason="assay.systems.config (the registry) is not there yet",
    ),
]

SECRET = "tok-7d1e-registry-secret"


@pytest.fixture(scope="module")
def remote() -> Any:
    seen: list[dict[str, Any]] = []
    app = FastAPI()

    @app.get("/api")
    async def api(request: Request, q: str, n: int) -> Any:
        seen.append({"headers": dict(request.headers), "q": q, "n": n})
        return {"results": [{"doc": {"key": f"{q}:{i}"}, "s": 10 - i} for i in range(n)]}

    @app.post("/catalog/_search")
    async def search(request: Request) -> Any:
        body = json.loads(await request.body())
        seen.append({"headers": dict(request.headers), "body": body})
        hits = [{"_index": "catalog", "_id": "A1", "_score": 3.5}]
        return {"took": 1, "timed_out": False, "hits": {"max_score": 3.5, "hits": hits}}

    with serve_in_thread(app) as url:
        yield url, seen


def _toml(path: Path, url: str) -> Path:
    path.write_text(
        f"""
[systems.prod]
type = "http"
url = "{url}/api?q={{query}}&n={{k}}"
headers = {{ Authorization = "Bearer ${{ASSAY_TEST_REGISTRY_TOKEN}}" }}
hits_path = "results"
id_path = "doc.key"
score_path = "s"
retries = 0

[systems.search-cluster]
type = "opensearch"
url = "{url}"
index = "catalog"
fields = ["name^2", "definition_long"]
headers = {{ Authorization = "ApiKey ${{ASSAY_TEST_REGISTRY_TOKEN}}" }}
""",
        encoding="utf-8",
    )
    return path


def test_http_system_from_assay_toml(
    remote: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.systems.config import build_system

    url, seen = remote
    seen.clear()
    monkeypatch.setenv("ASSAY_TEST_REGISTRY_TOKEN", SECRET)
    system = build_system("prod", config_path=_toml(tmp_path / "assay.toml", url))
    assert system.name == "prod"
    assert system.search("tax rate", 2) == [Hit("tax rate:0", 10.0), Hit("tax rate:1", 9.0)]
    assert seen[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in json.dumps(system.config)
    assert SECRET not in repr(system)


def test_opensearch_system_from_assay_toml(
    remote: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.systems.config import build_system

    url, seen = remote
    seen.clear()
    monkeypatch.setenv("ASSAY_TEST_REGISTRY_TOKEN", SECRET)
    system = build_system("search-cluster", config_path=_toml(tmp_path / "assay.toml", url))
    assert system.search("gdp", 7) == [Hit("A1", 3.5)]
    assert seen[0]["body"]["size"] == 7
    assert seen[0]["body"]["query"]["multi_match"]["fields"] == ["name^2", "definition_long"]
    assert seen[0]["headers"]["authorization"] == f"ApiKey {SECRET}"
    assert SECRET not in json.dumps(system.config)
