"""HttpSystem against a real local server that misbehaves on purpose.

One FastAPI app runs in a uvicorn thread for the module; each test gets a fresh
``State`` recording what the server saw (attempts, bodies, headers, in-flight).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from typing import Any

import pytest
from _tables import table_factory
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from assay.core.errors import UsageError
from assay.systems.base import Hit, SystemError_, config_hash
from assay.systems.http import HttpSystem
from assay.systems.server import serve_in_thread

from_config = table_factory("http")

pytestmark = pytest.mark.timeout(60)


class State:
    """What the misbehaving server observed."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self.params: list[dict[str, str]] = []
        self.raw_queries: list[str] = []
        self.bodies: list[Any] = []
        self.headers: list[dict[str, str]] = []


def _hits(q: str, k: int) -> dict[str, Any]:
    return {"hits": [{"id": f"{q}#{i}", "score": 1.0 / (i + 3)} for i in range(k)]}


def _make_app(box: dict[str, State]) -> Any:
    app = FastAPI()

    async def record(request: Request, key: str) -> State:
        state = box["state"]
        state.calls[key] += 1
        state.params.append(dict(request.query_params))
        state.raw_queries.append(request.url.query)
        state.headers.append(dict(request.headers))
        body = await request.body()
        state.bodies.append(json.loads(body) if body else None)
        return state

    @app.get("/ok")
    async def ok(request: Request, q: str, k: int) -> Any:
        await record(request, "ok")
        return _hits(q, k)

    @app.post("/echo")
    async def echo(request: Request) -> Any:
        state = await record(request, "echo")
        body = state.bodies[-1]
        return {"data": {"items": [{"doc": {"id": body["q"]}, "relevance": 2.5}]}}

    @app.get("/sleep")
    async def sleep(request: Request, q: str, k: int, delay: float) -> Any:
        state = await record(request, "sleep")
        state.in_flight += 1
        state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            await asyncio.sleep(delay)
        finally:
            state.in_flight -= 1
        return _hits(q, k)

    @app.get("/status/{code}")
    async def status(request: Request, code: int) -> Any:
        await record(request, f"status{code}")
        return JSONResponse({"error": f"status {code}"}, status_code=code)

    @app.get("/flaky/{failures}")
    async def flaky(request: Request, failures: int, q: str, k: int) -> Any:
        state = await record(request, "flaky")
        if state.calls["flaky"] <= failures:
            return JSONResponse({"error": "overloaded"}, status_code=503)
        return _hits(q, k)

    canned = {
        "badjson": PlainTextResponse('{"hits": [', media_type="application/json"),
        "html": PlainTextResponse("<html>gateway</html>", media_type="text/html"),
        "nohits": JSONResponse({"results": []}),
        "notlist": JSONResponse({"hits": {"id": "a"}}),
        "noid": JSONResponse({"hits": [{"id": "a", "score": 1}, {"score": 0.5}]}),
        "nullid": JSONResponse({"hits": [{"id": None, "score": 1}]}),
        "badscore": JSONResponse({"hits": [{"id": "a", "score": "high"}]}),
        "nullscore": JSONResponse({"hits": [{"id": 7, "score": None}]}),
        "strscore": JSONResponse({"hits": [{"id": "a", "score": "1.5"}]}),
        "bare": JSONResponse([{"id": "x", "score": 3}, {"id": "y", "score": 2}]),
    }

    @app.get("/raw/{name}")
    async def raw(request: Request, name: str) -> Any:
        await record(request, name)
        return canned[name]

    return app


@pytest.fixture(scope="module")
def server() -> Any:
    box = {"state": State()}
    with serve_in_thread(_make_app(box)) as url:
        yield url, box


@pytest.fixture
def base(server: Any) -> str:
    url, _ = server
    return url


@pytest.fixture
def state(server: Any) -> State:
    _, box = server
    box["state"] = State()
    return box["state"]


def _system(url: str, **kwargs: Any) -> HttpSystem:
    kwargs.setdefault("hits_path", "hits")
    kwargs.setdefault("id_path", "id")
    kwargs.setdefault("score_path", "score")
    kwargs.setdefault("backoff", 0.01)
    return HttpSystem("svc", url=url, **kwargs)


# -- happy paths -------------------------------------------------------------


def test_get_fills_url_encoded_query_and_k(base: str, state: State) -> None:
    query = "a&b=c d/é?#%{k}"
    with _system(f"{base}/ok?q={{query}}&k={{k}}") as system:
        hits = system.search(query, 3)
    assert state.params == [{"q": query, "k": "3"}]
    assert "&b=" not in state.raw_queries[0]
    assert hits == [Hit(f"{query}#{i}", 1.0 / (i + 3)) for i in range(3)]


def test_post_json_template_is_safe_and_k_is_a_number(base: str, state: State) -> None:
    query = 'say "hi" \\ {k} ${HOME} }'
    body = {"q": "{query}", "size": "{k}", "text": "find: {query} top {k}", "flags": [True, None]}
    system = _system(
        f"{base}/echo",
        method="post",
        body=body,
        hits_path="data.items[]",
        id_path="doc.id",
        score_path="relevance",
    )
    hits = system.search(query, 5)
    system.close()
    assert state.bodies == [
        {"q": query, "size": 5, "text": f"find: {query} top 5", "flags": [True, None]}
    ]
    assert hits == [Hit(query, 2.5)]
    assert body["size"] == "{k}"  # the caller's template is untouched


def test_body_as_json_text(base: str, state: State) -> None:
    system = _system(
        f"{base}/echo",
        method="POST",
        body='{"q": "{query}", "n": "{k}"}',
        hits_path="data.items",
        id_path="doc.id",
        score_path=None,
    )
    assert system.search("x", 2) == [Hit("x", None)]
    assert state.bodies == [{"q": "x", "n": 2}]


def test_hits_are_cut_to_k_and_ids_become_strings(base: str, state: State) -> None:
    assert _system(f"{base}/raw/bare", hits_path="$").search("q", 1) == [Hit("x", 3.0)]
    assert _system(f"{base}/raw/nullscore").search("q", 5) == [Hit("7", None)]
    assert _system(f"{base}/raw/strscore").search("q", 5) == [Hit("a", 1.5)]


def test_slow_but_within_timeout_succeeds(base: str, state: State) -> None:
    system = _system(f"{base}/sleep?q={{query}}&k={{k}}&delay=0.3", timeout=5.0, retries=0)
    assert [h.doc_id for h in system.search("slow", 2)] == ["slow#0", "slow#1"]
    assert state.calls["sleep"] == 1


# -- failures ----------------------------------------------------------------


def _one_query(system: HttpSystem, text: str = "q", k: int = 3) -> Any:
    """Run one query through the runner, the one retry layer."""
    from assay.judgments.models import JudgmentSet
    from assay.systems.runner import run_system

    js = JudgmentSet.from_records([{"query_id": "q1", "text": text}], {"q1": {"d": 1}})
    return run_system(system, js, k, progress=False)


def test_one_call_is_one_request_with_a_transient_error(base: str, state: State) -> None:
    from assay.systems.http import TransientSystemError

    with pytest.raises(TransientSystemError, match="HTTP 500"):
        _system(f"{base}/status/500", retries=2).search("q", 3)
    assert state.calls["status500"] == 1


def test_timeout_is_retried_then_fails(base: str, state: State) -> None:
    system = _system(f"{base}/sleep?q={{query}}&k={{k}}&delay=1.5", timeout=0.25, retries=2)
    started = time.monotonic()
    outcome = _one_query(system, "late")
    assert time.monotonic() - started < 5
    (failure,) = outcome.failures
    assert "within timeout 0.25 s" in failure.error and failure.attempts == 3
    assert state.calls["sleep"] == 3


def test_500_is_retried_then_fails(base: str, state: State) -> None:
    (failure,) = _one_query(_system(f"{base}/status/500", retries=2)).failures
    assert "HTTP 500" in failure.error and failure.attempts == 3
    assert state.calls["status500"] == 3


def test_429_is_retried(base: str, state: State) -> None:
    (failure,) = _one_query(_system(f"{base}/status/429", retries=1)).failures
    assert "HTTP 429" in failure.error
    assert state.calls["status429"] == 2


def test_server_failing_once_then_succeeding_gives_hits(base: str, state: State) -> None:
    outcome = _one_query(_system(f"{base}/flaky/1?q={{query}}&k={{k}}", retries=2), k=2)
    assert not outcome.failures
    assert outcome.run.frame["doc_id"].tolist() == ["q#0", "q#1"]
    assert state.calls["flaky"] == 2


def test_4xx_is_not_retried(base: str, state: State) -> None:
    with pytest.raises(SystemError_, match=r"HTTP 404.*not retried"):
        _system(f"{base}/status/404", retries=3).search("q", 3)
    assert state.calls["status404"] == 1


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("badjson", "not valid JSON"),
        ("html", "not valid JSON"),
        ("nohits", "no hit list at 'hits'"),
        ("notlist", "'hits' is not a list"),
        ("noid", "hit 2 has no id at 'id'"),
        ("nullid", "hit 1 has id None"),
        ("badscore", "non-numeric score 'high'"),
    ],
)
def test_bad_payloads_fail_once_with_a_reason(
    base: str, state: State, name: str, pattern: str
) -> None:
    with pytest.raises(SystemError_, match=pattern):
        _system(f"{base}/raw/{name}", retries=2).search("q", 5)
    assert state.calls[name] == 1


def test_connection_refused_is_a_system_error() -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    system = _system(f"http://127.0.0.1:{port}/x?q={{query}}", retries=1)
    with pytest.raises(SystemError_, match=r"connection failed"):
        system.search("q", 1)
    (failure,) = _one_query(system).failures
    assert "connection failed" in failure.error and failure.attempts == 2


# -- concurrency -------------------------------------------------------------


def test_search_many_keeps_order_and_respects_concurrency(base: str, state: State) -> None:
    system = _system(f"{base}/sleep?q={{query}}&k={{k}}&delay=0.15", concurrency=3)
    queries = [f"q{i}" for i in range(12)]
    results = system.search_many(queries, 2)
    system.close()
    assert [r[0].doc_id for r in results if isinstance(r, list)] == [f"q{i}#0" for i in range(12)]
    assert state.calls["sleep"] == 12
    assert state.max_in_flight <= 3
    assert state.max_in_flight >= 2  # it did run in parallel


def test_search_many_reports_failures_in_place(base: str, state: State) -> None:
    system = _system(f"{base}/flaky/2?q={{query}}&k={{k}}", retries=0, concurrency=1)
    results = system.search_many(["a", "b", "c"], 1)
    assert isinstance(results[0], SystemError_)
    assert isinstance(results[1], SystemError_)
    assert results[2] == [Hit("c#0", 1.0 / 3)]
    assert system.search_many([], 3) == []


def test_threads_calling_search_share_the_concurrency_limit(base: str, state: State) -> None:
    system = _system(f"{base}/sleep?q={{query}}&k={{k}}&delay=0.1", concurrency=2)
    errors: list[BaseException] = []

    def call(i: int) -> None:
        try:
            system.search(f"t{i}", 1)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    system.close()
    assert errors == []
    assert state.calls["sleep"] == 8
    assert state.max_in_flight <= 2


# -- secrets -----------------------------------------------------------------


def test_env_secret_reaches_server_but_never_config(
    base: str, state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cr3t-Value-9f2"
    monkeypatch.setenv("ASSAY_TEST_TOKEN", secret)
    system = _system(
        f"{base}/ok?q={{query}}&k={{k}}",
        headers={"Authorization": "Bearer ${ASSAY_TEST_TOKEN}", "X-Literal-Api-Key": "plain"},
    )
    assert system.search("q", 1) == [Hit("q#0", 1.0 / 3)]
    assert state.headers[0]["authorization"] == f"Bearer {secret}"
    config = system.config
    dumped = json.dumps(config)
    assert secret not in dumped
    assert secret not in repr(system)
    assert config["headers"]["Authorization"] == "Bearer ${ASSAY_TEST_TOKEN}"
    assert "plain" not in dumped  # a literal secret-looking header is redacted
    assert config_hash(config) == config_hash(system.config)


def test_error_messages_do_not_leak_env_values(
    base: str, state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_KEY", "leaky-value-123")
    system = _system(f"{base}/status/401?api_key=${{ASSAY_TEST_KEY}}&q={{query}}", retries=0)
    with pytest.raises(SystemError_) as info:
        system.search("q", 1)
    assert state.params[0]["api_key"] == "leaky-value-123"
    assert "leaky-value-123" not in str(info.value)
    assert "${ASSAY_TEST_KEY}" in str(info.value)


def test_missing_env_var_is_a_usage_error_naming_it(
    base: str, state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASSAY_TEST_ABSENT", raising=False)
    system = _system(f"{base}/ok?q={{query}}&k={{k}}", headers={"X-Key": "${ASSAY_TEST_ABSENT}"})
    with pytest.raises(UsageError, match="ASSAY_TEST_ABSENT"):
        system.search("q", 1)
    with pytest.raises(UsageError, match="ASSAY_TEST_ABSENT"):
        system.search_many(["q"], 1)
    assert state.calls["ok"] == 0


# -- configuration -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"url": "ftp://x/{query}"}, "url must be an http"),
        ({"method": "PUT"}, "method must be GET or POST"),
        ({"body": "{not json"}, "body is not valid JSON"),
        ({"hits_path": "a..b"}, "hits_path bad JSON path"),
        ({"id_path": "a[x]"}, "id_path bad JSON path"),
        ({"timeout": 0}, "timeout must be a finite number of seconds > 0"),
        ({"timeout": float("inf")}, "timeout must be a finite number of seconds > 0"),
        ({"retries": -1}, "retries must be a whole number from 0 to 100"),
        ({"retries": 101}, "retries must be a whole number from 0 to 100"),
        ({"concurrency": 0}, "concurrency must be an integer >= 1"),
        ({"headers": {"X": 3}}, "headers.X must be a string"),
    ],
)
def test_bad_arguments_are_usage_errors(kwargs: dict[str, Any], pattern: str) -> None:
    kwargs = {"url": "http://127.0.0.1:9/?q={query}", **kwargs}
    with pytest.raises(UsageError, match=pattern):
        HttpSystem("svc", **kwargs)


def test_from_config_builds_http_and_rejects_unknown_keys(tmp_path: Any) -> None:
    table = {
        "type": "http",
        "url": "http://127.0.0.1:9/s?q={query}&n={k}",
        "hits_path": "results",
        "id_path": "doc_id",
        "score_path": "score",
        "timeout": 3,
        "retries": 1,
    }
    system = from_config("mine", table, corpus=None, base_dir=tmp_path)
    assert system.name == "mine"
    assert system.config["url"] == table["url"]
    assert system.config["type"] == "http"
    assert "timeout" not in system.config  # operational knobs do not change results
    with pytest.raises(UsageError, match="hits: unknown key"):
        from_config("mine", {**table, "hits": "x"}, corpus=None, base_dir=tmp_path)
    with pytest.raises(UsageError, match="url: is required"):
        from_config("mine", {"type": "http"}, corpus=None, base_dir=tmp_path)


def test_literal_secret_in_url_is_hidden_in_messages(base: str, state: State) -> None:
    system = _system(f"{base}/status/403?q={{query}}&api_key=literal-abc", retries=0)
    with pytest.raises(SystemError_, match="HTTP 403") as info:
        system.search("q", 1)
    assert state.params[0]["api_key"] == "literal-abc"
    assert "literal-abc" not in str(info.value)
    assert "api_key=<redacted>" in str(info.value)


def test_k_must_be_a_positive_integer(base: str, state: State) -> None:
    system = _system(f"{base}/ok?q={{query}}&k={{k}}")
    for bad in (0, -1, 2.5, "3"):
        with pytest.raises(UsageError, match="`k` must be a whole number >= 1"):
            system.search("q", bad)  # type: ignore[arg-type]
    assert state.calls["ok"] == 0
