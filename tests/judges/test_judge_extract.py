"""`assay judge claims --extract`: free-text answers split into claims, support judged,
scored by `assay answers`; against the local stub model server, malformed outputs included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.answers.claims import split_sentences

CTX = "The First Super Bowl was played on January 15, 1967, at the Los Angeles Memorial Coliseum."
ROWS = [
    {
        "id": "c1",
        "user_input": "When was the first Super Bowl?",
        "response": "The first Super Bowl was played in 1967. It was held indoors in Houston.",
        "retrieved_contexts": [CTX, "Bread is made from flour."],
        "reference": "January 15, 1967",
    },
    {
        "id": "c2",
        "user_input": "Where?",
        "response": "MALFORMED answer here.",
        "retrieved_contexts": [CTX],
    },
    {
        "id": "c3",
        "user_input": "Where?",
        "response": "Played at the Coliseum BADINDEX.",
        "retrieved_contexts": [CTX],
    },
    {"id": "c4", "user_input": "Where?", "response": "NOCLAIMS here.", "retrieved_contexts": [CTX]},
    {"id": "c5", "user_input": "Who?", "response": None, "retrieved_contexts": [CTX]},
    {
        "id": "c6",
        "user_input": "Where was it played?",
        "response": "It was played at the Los Angeles Memorial Coliseum! "
        "Tickets cost twelve dollars.",
        "retrieved_contexts": [CTX],
        "retrieved_context_ids": ["sb1"],
    },
]


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def ragas(tmp_path: Path) -> Path:
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _judge(mode: str, ragas: Path, model_toml: Path, *extra: str) -> tuple[dict, dict]:
    cwd = ragas.parent
    proc = assay(
        "judge", "claims", str(ragas), "--extract", mode, "--model", "stub",
        "--config", str(model_toml), "-o", "filled.jsonl", "--format", "json", *extra, cwd=cwd,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cases = {c["case_id"]: c for c in map(json.loads, (cwd / "filled.jsonl").open())}
    return json.loads(proc.stdout), cases


def _words(text: str) -> set[str]:
    import re

    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


def test_split_sentences_is_deterministic() -> None:
    assert split_sentences("It rose 3.5% in 2023. Then it fell!  Why? 東京です。大阪") == [
        "It rose 3.5% in 2023.",
        "Then it fell!",
        "Why?",
        "東京です。",
        "大阪",
    ]


def test_sentences_every_sentence_cites_every_context(ragas: Path, model_toml: Path) -> None:
    result, cases = _judge("sentences", ragas, model_toml)
    extraction = result["extraction"]
    assert extraction["mode"] == "sentences" and extraction["cases_read"] == 6
    assert extraction["left_out"] == {"no response": ["c5"]}
    c1 = cases["c1"]
    assert [c["text"] for c in c1["response"]["claims"]] == split_sentences(ROWS[0]["response"])
    assert c1["retrieved_ids"] == ["c1#0", "c1#1"]
    for i, claim in enumerate(c1["response"]["claims"]):
        assert claim["citations"] == ["c1#0", "c1#1"]
        verdicts = c1["support"][str(i)]["judgments"]
        # the stub supports a claim when the source holds all its long words
        texts = {"c1#0": CTX, "c1#1": "Bread is made from flour."}
        assert verdicts == {d: _words(claim["text"]) <= _words(texts[d]) for d in texts}
    assert cases["c6"]["retrieved_ids"] == ["sb1"]


def test_model_extraction_malformed_outputs_left_out_with_reason(
    ragas: Path, model_toml: Path
) -> None:
    result, cases = _judge("model", ragas, model_toml)
    extraction = result["extraction"]
    assert extraction["left_out"] == {
        "no response": ["c5"],
        "unreadable output": ["c2", "c3", "c4"],
    }
    assert extraction["cases_written"] == 2 == len(cases)
    claims = cases["c1"]["response"]["claims"]
    assert claims[0]["citations"] == ["c1#0"] and claims[1]["citations"] == []
    assert cases["c1"]["support"]["1"] == {"judgments": {}, "judged_by": None}
    # the structured cases `assay answers` scores: support, hallucination, first failing layer
    scored = assay("answers", "filled.jsonl", "--format", "json", "--no-record", cwd=ragas.parent)
    assert scored.returncode == 0, scored.stderr
    answers = json.loads(scored.stdout)
    assert answers["scores"]["claim_support_rate"]["numerator"] == 2  # c1 claim 0, c6 claim 0
    assert answers["scores"]["claim_support_rate"]["denominator"] == 4
    assert answers["scores"]["hallucination_rate"]["value"] == 1.0
    rows = {r["case_id"]: r for r in answers["per_case"]}
    assert rows["c1"]["first_failure"] == "broken_provenance"  # a claim citing nothing


def test_people_sample_gives_a_ppi_interval(ragas: Path, model_toml: Path, tmp_path: Path) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    import numpy as np

    people = tmp_path / "people.jsonl"
    labels = [("c1", 0, True), ("c1", 1, True), ("c6", 0, False)]
    people.write_text(
        "".join(json.dumps({"case_id": c, "claim": i, "supported": s}) + "\n" for c, i, s in labels)
    )
    result, cases = _judge("sentences", ragas, model_toml, "--people", str(people))
    model = {}
    for case in cases.values():
        for key, entry in case["support"].items():
            verdicts = [v for v in entry["judgments"].values() if v is not None]
            if entry["judged_by"]:
                model[(case["case_id"], int(key))] = float(any(verdicts))
    y = np.array([float(s) for _, _, s in labels])
    yhat = np.array([model[(c, i)] for c, i, _ in labels])
    rest = np.array([v for k, v in model.items() if k not in {(c, i) for c, i, _ in labels}])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    interval = result["faithfulness"]
    assert interval["labelled"] == 3 and interval["unlabelled"] == len(rest)
    assert (interval["low"], interval["high"]) == pytest.approx((low[0], high[0]), abs=1e-9)


def test_failed_calls_and_refusals_are_named_in_the_library(
    model_toml: Path, tmp_path: Path
) -> None:
    from assay.procedures.judging import ClaimsOptions, judge_claims
    from assay.procedures.model_options import ModelCallOptions

    bad = {"e1": "Down ERROR500 here.", "e2": "It is REFUSE here."}
    rows = [
        {"id": k, "user_input": "Where?", "response": v, "retrieved_contexts": [CTX]}
        for k, v in bad.items()
    ] + [ROWS[0]]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    calls = ModelCallOptions(model="stub", config=model_toml, no_cache=True, max_failed=10)
    result = judge_claims(
        path, None, tmp_path / "out.jsonl", calls=calls, options=ClaimsOptions(extract="model")
    )
    assert result.extraction["left_out"] == {"failed call": ["e1"], "model refused": ["e2"]}
    assert result.extraction["cases_written"] == 1
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").open()]
    assert [c["case_id"] for c in written] == ["c1"]
