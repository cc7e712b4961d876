"""The ``solr`` system type against a fake Solr on loopback (no node needed).

The fake answers ``GET /solr/{collection}/select`` in Solr's response shape
(tests/data/systems/http/solr_select_response.json), keeps only the fields
``fl`` names and ``rows`` docs as Solr does, answers an unknown ``qf`` field
with Solr's 400 error body, and records every request's parameters, so the
tests check what the preset sends and how assay reads the answer. The same
system against a real Solr node: tests/systems/test_engines_real.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _tables import table_factory
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from assay.core.errors import InputError, UsageError
from assay.systems.base import Hit, SystemError_
from assay.systems.server import serve_in_thread

from_config = table_factory("solr")

pytestmark = pytest.mark.timeout(60)
FIELDS = {"title", "text", "doc_key", "id"}


def _solr_error(code: int, message: str) -> JSONResponse:
    metadata = ["error-class", "org.apache.solr.common.SolrException"]
    error = {"metadata": metadata, "msg": message, "code": code}
    return JSONResponse({"responseHeader": {"status": code}, "error": error}, status_code=code)


@pytest.fixture(scope="module")
def solr(data_dir: Path) -> Any:
    answer = json.loads((data_dir / "systems/http/solr_select_response.json").read_text())
    seen: list[dict[str, Any]] = []
    app = FastAPI()

    @app.get("/solr/{collection}/{handler}")
    async def select(collection: str, handler: str, request: Request) -> Any:
        params = request.query_params
        seen.append({"path": f"{collection}/{handler}", "params": params.multi_items()})
        if params.get("delay"):
            await asyncio.sleep(float(params["delay"]))
        if collection != "scifact":
            return _solr_error(404, f"Could not find collection : {collection}")
        for entry in params.get("qf", "").split():
            if entry.split("^")[0] not in FIELDS:
                return _solr_error(400, f"undefined field {entry.split('^')[0]}")
        wanted = params["fl"].split(",")
        docs = answer["response"]["docs"][: int(params["rows"])]
        out = json.loads(json.dumps(answer))
        out["response"]["docs"] = [{f: d[f] for f in wanted if f in d} for d in docs]
        return out

    with serve_in_thread(app) as url:
        yield url + "/solr", seen


def _table(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "solr", "url": url, "collection": "scifact", "qf": ["title^2", "text"]} | extra


def test_select_parameters_and_parsing(solr: Any, tmp_path: Path) -> None:
    url, seen = solr
    seen.clear()
    table = _table(
        url + "/",
        pf="title^3",
        mm="2<75%",
        id_field="doc_key",
        params={
            "fq": ["year:[2000 TO *]", "-type:retracted"],
            "tie": 0.1,
            "lowercaseOperators": True,
        },
    )
    system = from_config("solr", table, corpus=None, base_dir=tmp_path)
    query = 'vitamin D & "bone density" {k} ${HOME}'
    assert system.search(query, 2) == [
        Hit("FS_UNDERNOURISH_PCT", 7.1532483),
        Hit("SH_STUNTING_PCT", 3.0460312),
    ]
    (request,) = seen
    assert request["path"] == "scifact/select"
    assert request["params"] == [
        ("q", query),
        ("rows", "2"),
        ("defType", "edismax"),
        ("qf", "title^2 text"),
        ("pf", "title^3"),
        ("mm", "2<75%"),
        ("fq", "year:[2000 TO *]"),
        ("fq", "-type:retracted"),
        ("tie", "0.1"),
        ("lowercaseOperators", "true"),
        ("fl", "doc_key,score"),
        ("wt", "json"),
    ]
    assert system.config["type"] == "solr"
    assert system.config["hits_path"] == "response.docs"
    assert system.config["id_path"] == "doc_key"


def test_default_id_field_numeric_ids_and_custom_handler(solr: Any, tmp_path: Path) -> None:
    url, seen = solr
    seen.clear()
    table = _table(url, qf="title text", handler="/browse", def_type="dismax")
    system = from_config("solr", table, corpus=None, base_dir=tmp_path)
    assert [h.doc_id for h in system.search("x", 10)] == ["internal-1", "internal-2", "internal-3"]
    assert seen[0]["path"] == "scifact/browse"
    assert ("defType", "dismax") in seen[0]["params"] and ("fl", "id,score") in seen[0]["params"]
    keyed = from_config("solr", _table(url, id_field="doc_key"), corpus=None, base_dir=tmp_path)
    assert [h.doc_id for h in keyed.search("x", 10)] == [
        "FS_UNDERNOURISH_PCT",
        "SH_STUNTING_PCT",
        "42",
    ]


def test_solr_errors_are_failed_queries_with_solr_s_message(solr: Any, tmp_path: Path) -> None:
    from assay.judgments.models import JudgmentSet
    from assay.systems.runner import run_system

    url, seen = solr
    seen.clear()
    system = from_config("solr", _table(url, qf=["nope"]), corpus=None, base_dir=tmp_path)
    with pytest.raises(SystemError_, match=r"HTTP 400.*undefined field nope.*not retried"):
        system.search("x", 3)
    missing = from_config(
        "solr", _table(url) | {"collection": "other"}, corpus=None, base_dir=tmp_path
    )
    judgments = JudgmentSet.from_records([{"query_id": "q1", "text": "x"}], {"q1": {"d": 1}})
    (failure,) = run_system(missing, judgments, 3, progress=False).failures
    assert "HTTP 404" in failure.error and "Could not find collection" in failure.error
    assert failure.attempts == 1  # a client error is not retried


def test_timeout_is_retried_then_counted_as_a_failure(solr: Any, tmp_path: Path) -> None:
    from assay.judgments.models import JudgmentSet
    from assay.systems.runner import run_system

    url, seen = solr
    seen.clear()
    table = _table(url, params={"delay": "1.0"}, timeout=0.2, retries=1, backoff=0.0)
    system = from_config("solr", table, corpus=None, base_dir=tmp_path)
    judgments = JudgmentSet.from_records([{"query_id": "q1", "text": "x"}], {"q1": {"d": 1}})
    (failure,) = run_system(system, judgments, 3, progress=False).failures
    assert "within timeout 0.2 s" in failure.error and failure.attempts == 2
    assert len(seen) == 2


def test_solr_system_from_assay_toml(solr: Any, tmp_path: Path) -> None:
    from assay.systems.config import build_system

    url, seen = solr
    seen.clear()
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.solr]\ntype = "solr"\nurl = "{url}"\ncollection = "scifact"\n'
        'qf = ["title^2", "text"]\nid_field = "doc_key"\nmm = 1\n',
        encoding="utf-8",
    )
    system = build_system("solr", config_path=config)
    assert system.search("x", 1) == [Hit("FS_UNDERNOURISH_PCT", 7.1532483)]
    assert ("mm", "1") in seen[0]["params"]


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        ({"qf": []}, "qf must list fields"),
        ({"qf": ["title^2", "bad field"]}, "not field or field\\^boost"),
        ({"collection": "a/b"}, "collection must be a collection or core name"),
        ({"collection": ".."}, "collection must be a collection or core name"),
        ({"handler": "a/../admin"}, "handler must be a handler path"),
        ({"mm": -1}, "mm must be a non-empty string"),
        ({"mm": True}, "mm.str: must be a valid string"),
        ({"id_field": "doc.id"}, "id_field must be a Solr field name"),
        ({"params": {"rows": 5}}, "params.rows is set by the solr system itself"),
        ({"params": {"qf": "x"}}, "use the qf key"),
        ({"params": {"fq": {"a": 1}}}, "params.fq.str: must be a valid string"),
        ({"mm": " "}, "mm must be a non-empty string"),
        ({"size": 3}, "unknown key"),
    ],
)
def test_bad_solr_tables(extra: dict[str, Any], pattern: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=pattern):
        from_config("s", _table("http://h:8983/solr", **extra), corpus=None, base_dir=tmp_path)
    with pytest.raises(UsageError, match="qf: is required"):
        from_config(
            "s",
            {"type": "solr", "url": "http://h", "collection": "c"},
            corpus=None,
            base_dir=tmp_path,
        )


def test_config_file_checks_solr_keys_with_their_line(tmp_path: Path) -> None:
    from assay.systems.config import load_config

    config = tmp_path / "assay.toml"
    config.write_text(
        '[systems.s]\ntype = "solr"\nurl = "http://h/solr"\ncollection = "c"\n'
        'qf = ["t"]\ntimeout = -1\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_config(config)
    (problem,) = info.value.problems
    assert problem.line == 6 and "timeout" in problem.message
    assert "def_type" in (problem.hint or "") and "id_field" in (problem.hint or "")


def test_assay_run_writes_the_stub_s_ranking_and_the_config_in_the_sidecar(
    solr: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.cli import main

    url, seen = solr
    seen.clear()
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ASSAY_TEST_SOLR_BASE", url)
    config = tmp_path / "assay.toml"
    config.write_text(
        '[systems.solr]\ntype = "solr"\nurl = "${ASSAY_TEST_SOLR_BASE}"\n'
        'collection = "scifact"\nqf = "title^2 text"\nid_field = "doc_key"\n',
        encoding="utf-8",
    )
    queries = tmp_path / "q.jsonl"
    lines = [
        {"query_id": q, "query": f"text {q}", "relevant": {"SH_STUNTING_PCT": 1}} for q in "ab"
    ]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "solr.trec"
    argv = ["run", str(queries), "--system", "solr", "--config", str(config), "-k", "2"]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "-o", str(out), "--no-progress"])
    assert exc.value.code in (0, None)
    rows = [line.split() for line in out.read_text().splitlines() if not line.startswith("#")]
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("a", "FS_UNDERNOURISH_PCT", "1"),
        ("a", "SH_STUNTING_PCT", "2"),
        ("b", "FS_UNDERNOURISH_PCT", "1"),
        ("b", "SH_STUNTING_PCT", "2"),
    ]
    assert sorted(dict(r["params"])["q"] for r in seen) == ["text a", "text b"]
    side = json.loads((tmp_path / "solr.trec.json").read_text())
    assert side["system_config"]["type"] == "solr"
    assert side["system_config"]["url"].startswith("${ASSAY_TEST_SOLR_BASE}/scifact/select?q=")
    assert url not in json.dumps(side)  # the URL stays in the environment
