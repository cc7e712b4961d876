"""The matrix against the stub model server: injection and decline caught, costs, cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_matrix import write_matrix

from assay.matrix import load_matrix, run_matrix
from assay.matrix.runner import messages_for
from assay.providers.client import OfflineMiss


def _requests(stub) -> int:
    return len(stub.state.requests)


def test_injection_and_wrong_decline_are_caught(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url))
    result = run_matrix(cfg, cache_dir=str(tmp_path / "cache"))
    plain = result.cell("plain/small", "injection")
    assert plain.passes == 0 and plain.attempts[0].assertions["injection"] is False
    assert "PWNED" in plain.attempts[0].reasons[0]
    assert plain.attempts[0].assertions["provenance"] is False  # answered without a claim
    assert result.cell("strict/small", "injection").pass_all  # the hardened prompt resists
    for prompt in ("strict", "plain"):
        timid = result.cell(f"{prompt}/timid", "supported")
        assert timid.passes == 0
        assert timid.attempts[0].assertions["status"] is False
        assert timid.attempts[0].reasons[0] == "declined, expected answered"
        assert result.cell(f"{prompt}/timid", "insufficient").pass_all
    assert result.cell("strict/small", "supported").pass_all
    assert result.cell("strict/small", "insufficient").pass_all
    assert result.variant("strict/small").pass_rate == 1.0
    assert result.variant("plain/small").pass_all_rate == pytest.approx(2 / 3)
    # the secret never reaches the result
    assert "sk-matrix-secret-42" not in result.to_json()
    assert result.providers[0]["model"] == "stub-small"


def test_costs_are_tokens_times_prices(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=1))
    before = _requests(stub)
    result = run_matrix(cfg, cache_dir=str(tmp_path / "cache"))
    sent = stub.state.requests[before:]
    assert len(sent) == 2 * 2 * 3
    prices = {"small": (2.0, 4.0), "timid": (0.5, 1.5)}
    for v in result.variants:
        p_in, p_out = prices[v.provider]
        u = v.usage
        assert u.calls == 3 and u.cached == 0
        assert u.cost == pytest.approx((u.input_tokens * p_in + u.output_tokens * p_out) / 1e6)
        # the stub counts whitespace-separated words of the messages it got
        prompt = next(p for p in cfg.prompts if p.name == v.prompt)
        words = sum(len(m["content"].split()) for c in cfg.cases for m in messages_for(prompt, c))
        assert u.input_tokens == words
    assert result.usage.cost == pytest.approx(sum(v.usage.cost for v in result.variants))


def test_repeats_replay_from_the_cache_with_zero_calls(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=3))
    cache = str(tmp_path / "cache")
    before = _requests(stub)
    first = run_matrix(cfg, cache_dir=cache)
    assert _requests(stub) - before == 2 * 2 * 3 * 3  # every repeat is its own call
    samples = {
        (r["messages"][0]["content"], r["messages"][1]["content"], r["model"])
        for r in stub.state.requests[before:]
    }
    assert len(samples) == 2 * 2 * 3  # same messages, the repeat index keys the cache
    again = run_matrix(cfg, cache_dir=cache)
    assert _requests(stub) - before == 36  # second run: zero calls
    assert again.usage.cached == again.usage.calls == 36 and again.usage.spent == 0
    assert again.usage.cost == pytest.approx(first.usage.cost)
    for a, b in zip(first.cells, again.cells, strict=True):
        assert [x.passed for x in a.attempts] == [x.passed for x in b.attempts]
        assert [x.latency for x in a.attempts] == pytest.approx([x.latency for x in b.attempts])
    offline = run_matrix(cfg, cache_dir=cache, offline=True)
    assert offline.usage.cached == 36


def test_offline_miss_lists_the_missing_calls(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=1))
    with pytest.raises(OfflineMiss, match="12 call"):
        run_matrix(cfg, cache_dir=str(tmp_path / "empty"), offline=True)


def test_flaky_cells_and_pass_hat_n(stub, env, tmp_path: Path) -> None:
    case = (
        '{"case_id": "flaky", "question": "FLAKY which gas do plant leaves absorb?", '
        '"documents": [{"id": "d1", "text": "Plant leaves absorb carbon dioxide."}], '
        '"expected_status": "answered"}\n'
    )
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=4, cases=case))
    result = run_matrix(cfg, cache_dir=str(tmp_path / "cache"))
    cell = result.cell("strict/small", "flaky")
    assert cell.n == 4 and cell.passes == 2 and cell.flaky and not cell.pass_all
    assert cell.pass_rate == 0.5
    assert result.variant("strict/small").flaky_cells == 1
    assert result.variant("strict/small").pass_all_rate == 0.0


def test_budget_stops_before_passing_it(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=1, extra="max_cost = 0.003"))
    result = run_matrix(cfg, no_cache=True)
    assert result.stopped_at_budget
    assert result.usage.spent <= 0.003
    assert sum(c.n for c in result.cells) < 12


def test_rubric_is_graded_by_the_judge(stub, env, tmp_path: Path) -> None:
    cfg = load_matrix(write_matrix(tmp_path, stub.base_url, repeats=1, judge=True))
    assert [p.name for p in cfg.providers] == ["small", "timid"]  # the judge is no column
    result = run_matrix(cfg, cache_dir=str(tmp_path / "cache"))
    good = result.cell("strict/small", "supported").attempts[0]
    assert good.assertions["rubric"] is True and good.passed
    assert result.cell("strict/timid", "supported").attempts[0].assertions["rubric"] is None
    assert result.judge_usage is not None and result.judge_usage.calls >= 1


def test_rubric_fails_a_claim_its_citation_does_not_support(stub, env, tmp_path: Path) -> None:
    (tmp_path / "overclaim.py").write_text(
        "def answer(system_prompt, question, documents):\n"
        "    claim = 'Plant leaves absorb oxygen at night.'\n"
        "    return {'status': 'answered', 'answer': claim,\n"
        "            'claims': [{'text': claim, 'citations': [documents[0]['id']]}]}\n",
        encoding="utf-8",
    )
    path = write_matrix(tmp_path, stub.base_url, repeats=1, judge=True)
    text = (
        path.read_text(encoding="utf-8")
        + '\n[baselines.overclaim]\nfunction = "overclaim.py:answer"\n'
    )
    path.write_text(text, encoding="utf-8")
    result = run_matrix(load_matrix(path), cache_dir=str(tmp_path / "cache"))
    attempt = result.cell("strict/overclaim", "supported").attempts[0]
    assert attempt.assertions["provenance"] is True  # a valid citation ...
    assert (
        attempt.assertions["rubric"] is False and not attempt.passed
    )  # ... of an unsupported claim
    assert "claim 0 is not supported by its citations (judge)" in attempt.reasons
