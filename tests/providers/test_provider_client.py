"""The chat client against the local stub: structured modes, retries, cache, accounting, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from assay.core.errors import UsageError
from assay.core.retry import RetryPolicy
from assay.judges.graders import RELEVANCE
from assay.providers.call_cache import CallCache
from assay.providers.client import ChatClient, OfflineMiss, ProviderError, parse_json_answer
from assay.providers.model_config import get_model, model_from_table

FAST = RetryPolicy(retries=2, backoff=0.0, jitter=0.0)


def _messages(query: str, passage: str) -> list[dict[str, str]]:
    return RELEVANCE.messages({"query": query, "passage": passage})


def test_config_resolves_env_and_hides_secrets(model_toml: Path) -> None:
    cfg = get_model("stub", model_toml)
    assert cfg.model == "stub-small"  # model id from ${STUB_MODEL}
    assert cfg.api_key == "sk-test-secret-123"
    shown = json.dumps(cfg.shown())
    assert "sk-test-secret-123" not in shown
    assert cfg.temperature == 0.0 and cfg.structured == "json_schema"
    assert cfg.cost(1_000_000, 500_000) == pytest.approx(2.0)


def test_config_errors_are_usage_errors(monkeypatch: pytest.MonkeyPatch, model_toml: Path) -> None:
    with pytest.raises(UsageError, match="no model 'nope'"):
        get_model("nope", model_toml)
    with pytest.raises(UsageError, match="structured"):
        model_from_table("m", {"base_url": "http://x", "model": "m", "structured": "xml"})
    with pytest.raises(UsageError, match="NOT_SET_ANYWHERE"):
        model_from_table("m", {"base_url": "http://x", "model": "${NOT_SET_ANYWHERE}"})
    monkeypatch.setenv("PRICE", "abc")
    with pytest.raises(UsageError, match="input_price: must be a number"):
        model_from_table("m", {"base_url": "http://x", "model": "m", "input_price": "${PRICE}"})
    monkeypatch.setenv("PRICE", "0.25")
    cfg = model_from_table("m", {"base_url": "http://x", "model": "m", "input_price": "${PRICE}"})
    assert cfg.input_price == 0.25
    with pytest.raises(UsageError, match="unknown key"):
        model_from_table("m", {"base_url": "http://x", "model": "m", "temprature": 1})


@pytest.mark.parametrize("name", ["stub", "stubtext", "stubobject"])
def test_each_structured_mode_gets_a_parsable_answer(
    name: str, model_toml: Path, tmp_path: Path, stub
) -> None:
    cfg = get_model(name, model_toml)
    with ChatClient(cfg, cache=CallCache(tmp_path / name), policy=FAST) as client:
        answer = client.complete(
            _messages("food price inflation", "food price and inflation"), RELEVANCE.schema
        )
    assert RELEVANCE.parse(parse_json_answer(answer.content))["grade"] == 3
    body = stub.state.requests[-1]
    fmt = body.get("response_format")
    expected = {"stub": "json_schema", "stubtext": None, "stubobject": "json_object"}[name]
    assert (fmt or {}).get("type") == expected
    assert body["temperature"] == 0.0


def test_api_key_is_sent_as_bearer_and_never_cached(model_toml: Path, tmp_path: Path, stub) -> None:
    cache = CallCache(tmp_path / "c")
    with ChatClient(get_model("stub", model_toml), cache=cache, policy=FAST) as client:
        client.complete(_messages("census", "census counts"), RELEVANCE.schema)
    assert stub.state.headers[-1]["authorization"] == "Bearer sk-test-secret-123"
    cache.close()
    assert b"sk-test-secret-123" not in (tmp_path / "c" / "model-calls.sqlite").read_bytes()


def test_cache_replays_with_original_latency_and_no_call(
    model_toml: Path, tmp_path: Path, stub
) -> None:
    cfg = get_model("stub", model_toml)
    msgs = _messages("housing permits", "housing starts and building permits SLOW")
    cache = CallCache(tmp_path / "c")
    with ChatClient(cfg, cache=cache, policy=FAST) as client:
        first = client.complete(msgs, RELEVANCE.schema)
    calls = sum(stub.state.calls.values())
    with ChatClient(cfg, cache=cache, offline=True) as client:
        again = client.complete(msgs, RELEVANCE.schema)
        other_sample = client.cached(msgs, RELEVANCE.schema, sample=1)
    assert sum(stub.state.calls.values()) == calls  # no call
    assert again.record.cached and not first.record.cached
    assert (
        again.record.latency == pytest.approx(first.record.latency) and first.record.latency >= 0.3
    )
    assert again.record.cost == first.record.cost > 0
    assert again.content == first.content
    assert other_sample is None  # the sample index is part of the key


def test_offline_miss_raises(model_toml: Path, tmp_path: Path) -> None:
    with (
        ChatClient(
            get_model("stub", model_toml), cache=CallCache(tmp_path), offline=True
        ) as client,
        pytest.raises(OfflineMiss),
    ):
        client.complete(_messages("never", "asked"), RELEVANCE.schema)


def test_429_with_retry_after_is_retried(model_toml: Path, tmp_path: Path, stub) -> None:
    msgs = _messages("population estimates", "population estimates RATE429")
    with ChatClient(
        get_model("stub", model_toml), cache=CallCache(tmp_path), policy=FAST
    ) as client:
        answer = client.complete(msgs, RELEVANCE.schema)
    assert answer.record.attempts == 2
    assert stub.state.calls[msgs[-1]["content"]] == 2


def test_errors_are_never_cached(model_toml: Path, tmp_path: Path, stub) -> None:
    msgs = _messages("boom", "ERROR500")
    cache = CallCache(tmp_path)
    with (
        ChatClient(get_model("stub", model_toml), cache=cache, policy=FAST) as client,
        pytest.raises(ProviderError, match="HTTP 500"),
    ):
        client.complete(msgs, RELEVANCE.schema)
        assert client.cached(msgs, RELEVANCE.schema, 0) is None
    assert len(cache) == 0
    assert stub.state.calls[msgs[-1]["content"]] == 3  # one call and two retries


def test_client_errors_are_not_retried() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(401, text="bad key")

    cfg = model_from_table("m", {"base_url": "http://model.invalid/v1", "model": "m"})
    with (
        ChatClient(cfg, transport=httpx.MockTransport(handler), policy=FAST) as client,
        pytest.raises(ProviderError, match="HTTP 401"),
    ):
        client.complete([{"role": "user", "content": "x"}])
    assert len(calls) == 1


def test_not_a_chat_completion_is_an_error() -> None:
    cfg = model_from_table("m", {"base_url": "http://model.invalid/v1", "model": "m"})
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"answer": 1}))
    with (
        ChatClient(cfg, transport=transport, policy=FAST) as client,
        pytest.raises(ProviderError, match="not a chat completion"),
    ):
        client.complete([{"role": "user", "content": "x"}])
    transport = httpx.MockTransport(lambda r: httpx.Response(200, text="<html>"))
    with (
        ChatClient(cfg, transport=transport, policy=FAST) as client,
        pytest.raises(ProviderError, match="not JSON"),
    ):
        client.complete([{"role": "user", "content": "x"}])


def test_timeouts_are_transient_and_retried(model_toml: Path) -> None:
    cfg = model_from_table(
        "slow", {"base_url": "http://model.invalid/v1", "model": "m", "timeout": 0.01}
    )

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with (
        ChatClient(cfg, transport=httpx.MockTransport(handler), policy=FAST) as client,
        pytest.raises(ProviderError, match=r"within timeout.*attempts"),
    ):
        client.complete([{"role": "user", "content": "x"}])


def test_parse_json_answer_reads_prose_and_fences() -> None:
    assert parse_json_answer('Sure!\n```json\n{"grade": 2}\n```') == {"grade": 2}
    assert parse_json_answer('{"grade": 1}') == {"grade": 1}
    with pytest.raises(ValueError):
        parse_json_answer('{"grade": 2, "rationale": "unfinished')
    with pytest.raises(ValueError):
        parse_json_answer(None)
