"""The ``opensearch`` and ``solr`` systems against real nodes, on BEIR SciFact.

Each test indexes SciFact's corpus into a fresh index (OpenSearch) or core
(Solr), runs the 300 test queries through assay's system and the runner, sends
the very same request to the node directly with httpx, and checks that assay's
run holds the node's ranking, ids and scores, query by query. The index is
deleted afterwards.

The nodes are not started here: the tests read their URLs from
``ASSAY_TEST_OPENSEARCH_URL`` (e.g. ``http://127.0.0.1:9200``) and
``ASSAY_TEST_SOLR_URL`` (Solr's base, e.g. ``http://127.0.0.1:8983/solr``, with
the ``_default`` configset) and skip with a reason when a variable is absent.
docs/engines.md says how to start the nodes, and why CI here cannot.
``ASSAY_TEST_ENGINES_DOCS`` caps how many documents are indexed (default: all
5,183).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.systems.http import from_config

pytestmark = pytest.mark.timeout(600)
K = 10
FIELDS = ["title^2", "text"]


def _url(var: str) -> str:
    url = os.environ.get(var, "").strip().rstrip("/")
    if not url:
        pytest.skip(f"{var} is not set: no real node to test against (docs/engines.md)")
    return url


def _scifact(shared: Path) -> tuple[list[dict[str, str]], Any]:
    """(SciFact documents, up to ASSAY_TEST_ENGINES_DOCS; the test queries as a JudgmentSet)."""
    from assay.judgments.models import JudgmentSet

    folder = shared / "beir_scifact"
    if not folder.is_dir():
        pytest.skip("beir_scifact is not in ../shared/data")
    limit = int(os.environ.get("ASSAY_TEST_ENGINES_DOCS", "0") or 0) or None
    docs = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            docs.append({"id": record["_id"], "title": record["title"], "text": record["text"]})
            if limit is not None and len(docs) >= limit:
                break
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels/test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    queries = []
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["_id"] in qrels:
            queries.append({"query_id": record["_id"], "text": record["text"]})
    return docs, JudgmentSet.from_records(queries, qrels, name="scifact-test")


def _assay_run(table: dict[str, Any], judgments: Any) -> dict[str, list[tuple[str, float]]]:
    from assay.systems.runner import run_system

    system = from_config("engine", table, corpus=None, base_dir=Path("."))
    outcome = run_system(system, judgments, K, progress=False)
    assert not outcome.failures, outcome.failures[:3]
    return outcome.run.to_dict(ties="given")


def _same(
    run: dict[str, list[tuple[str, float]]], direct: dict[str, list[tuple[str, float]]]
) -> None:
    """Query by query: the same ids in the same order, with the node's scores."""
    assert sum(1 for hits in direct.values() if hits) > len(direct) // 2  # the index answers
    for qid, hits in direct.items():
        assert run.get(qid, []) == hits, qid


# -- OpenSearch --------------------------------------------------------------


@pytest.fixture(scope="module")
def opensearch(shared_data: Path) -> Iterator[tuple[str, str, Any]]:
    import httpx

    url = _url("ASSAY_TEST_OPENSEARCH_URL")
    docs, judgments = _scifact(shared_data)
    index = f"assay-scifact-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=url, timeout=120) as client:
        mappings = {"properties": {"title": {"type": "text"}, "text": {"type": "text"}}}
        body = {"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": mappings}
        client.put(f"/{index}", json=body).raise_for_status()
        try:
            for start in range(0, len(docs), 1000):
                lines = []
                for doc in docs[start : start + 1000]:
                    lines.append(json.dumps({"index": {"_index": index, "_id": doc["id"]}}))
                    lines.append(json.dumps({"title": doc["title"], "text": doc["text"]}))
                answer = client.post(
                    "/_bulk",
                    content="\n".join(lines) + "\n",
                    headers={"Content-Type": "application/x-ndjson"},
                )
                answer.raise_for_status()
                assert not answer.json()["errors"]
            client.post(f"/{index}/_refresh").raise_for_status()
            yield url, index, judgments
        finally:
            client.delete(f"/{index}")


def _opensearch_direct(url: str, index: str, judgments: Any, clause: Any) -> dict[str, Any]:
    import httpx

    out = {}
    with httpx.Client(timeout=60) as client:
        for query in judgments:
            filled = json.loads(json.dumps(clause).replace("{query}", json.dumps(query.text)[1:-1]))
            body = {"size": K, "_source": False, "query": filled}
            answer = client.post(f"{url}/{index}/_search", json=body)
            answer.raise_for_status()
            hits = answer.json()["hits"]["hits"]
            out[query.query_id] = [(h["_id"], float(h["_score"])) for h in hits]
    return out


def test_opensearch_multi_match_equals_the_node(opensearch: Any) -> None:
    url, index, judgments = opensearch
    table = {"type": "opensearch", "url": url, "index": index, "fields": FIELDS}
    clause = {"multi_match": {"query": "{query}", "fields": FIELDS}}
    _same(_assay_run(table, judgments), _opensearch_direct(url, index, judgments, clause))


def test_opensearch_query_template_equals_the_node(opensearch: Any) -> None:
    url, index, judgments = opensearch
    clause = {
        "bool": {
            "should": [
                {"match": {"title": {"query": "{query}", "boost": 3}}},
                {"match_phrase": {"text": {"query": "{query}", "slop": 4}}},
                {"match": {"text": "{query}"}},
            ]
        }
    }
    table = {"type": "opensearch", "url": url, "index": index, "query": clause}
    _same(_assay_run(table, judgments), _opensearch_direct(url, index, judgments, clause))


# -- Solr --------------------------------------------------------------------


@pytest.fixture(scope="module")
def solr(shared_data: Path) -> Iterator[tuple[str, str, Any]]:
    import httpx

    url = _url("ASSAY_TEST_SOLR_URL")
    docs, judgments = _scifact(shared_data)
    core = f"assay_scifact_{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=url, timeout=120) as client:
        create = {"action": "CREATE", "name": core, "configSet": "_default"}
        client.get("/admin/cores", params=create).raise_for_status()
        try:
            fields = [
                {"name": f, "type": "text_general", "stored": False} for f in ("title", "text")
            ]
            client.post(f"/{core}/schema", json={"add-field": fields}).raise_for_status()
            for start in range(0, len(docs), 1000):
                batch = docs[start : start + 1000]
                client.post(f"/{core}/update", json=batch).raise_for_status()
            client.get(f"/{core}/update", params={"commit": "true"}).raise_for_status()
            yield url, core, judgments
        finally:
            unload = {"action": "UNLOAD", "core": core, "deleteInstanceDir": "true"}
            client.get("/admin/cores", params=unload)


def _solr_direct(url: str, core: str, judgments: Any, params: dict[str, str]) -> dict[str, Any]:
    import httpx

    out = {}
    with httpx.Client(timeout=60) as client:
        for query in judgments:
            asked = {"q": query.text, "rows": str(K), "fl": "id,score", "wt": "json", **params}
            answer = client.get(f"{url}/{core}/select", params=asked)
            answer.raise_for_status()
            docs = answer.json()["response"]["docs"]
            out[query.query_id] = [(str(d["id"]), float(d["score"])) for d in docs]
    return out


@pytest.mark.parametrize(
    "options",
    [{}, {"pf": ["title^3", "text"], "mm": "2<75%"}],
    ids=["qf", "qf-pf-mm"],
)
def test_solr_edismax_equals_the_node(solr: Any, options: dict[str, Any]) -> None:
    url, core, judgments = solr
    table = {"type": "solr", "url": url, "collection": core, "qf": FIELDS, **options}
    params = {"defType": "edismax", "qf": " ".join(FIELDS)}
    params |= {key: " ".join(v) if isinstance(v, list) else v for key, v in options.items()}
    _same(_assay_run(table, judgments), _solr_direct(url, core, judgments, params))
