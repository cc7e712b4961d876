"""Contexts as a run: ids kept, texts matched to corpus ids, scored as ir_measures scores them.

tests/data/answers_text/ragas_contexts.jsonl was written so that each context
text matches a corpus record (corpus.jsonl) in one known way: exactly (title and
text), normalised (case and punctuation changed), as a near-duplicate (a chunk
of the record), not at all, or a second time. The expected runs below follow
from that design, not from assay's output; ir_measures scores them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_answers import run

ir_measures = pytest.importorskip("ir_measures")

PEER = {
    "contexts nDCG@10": ir_measures.nDCG @ 10,
    "contexts RR": ir_measures.RR,
    "contexts R@10": ir_measures.R @ 10,
    "contexts P@5": ir_measures.P @ 5,
}


def _peer(qrels: dict, ranking: dict) -> dict[str, dict[str, float]]:
    """Per query values of ir_measures on a run given in rank order (scores descending)."""
    run_dict = {
        q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in ranking.items()
    }
    out: dict[str, dict[str, float]] = {q: {} for q in qrels}
    for name, measure in PEER.items():
        for m in ir_measures.iter_calc([measure], qrels, run_dict):
            out[m.query_id][name] = m.value
        for q in qrels:
            out[q].setdefault(name, 0.0)  # a query with nothing retrieved scores 0
    return out


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    code, out, err = run([*argv, "--no-record", "-f", "json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_text_contexts_matched_to_corpus_ids(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = data_dir / "answers_text"
    result = _json(
        ["answers", str(folder / "ragas_contexts.jsonl"), "--corpus", str(folder / "corpus.jsonl")],
        capsys,
    )
    assert result["context_matches"] == {
        "id": 0,
        "exact": 1,
        "normalised": 1,
        "near-duplicate": 1,
        "unmapped": 2,
        "repeated": 1,
    }
    qrels = {"line 1": {"sb1": 1}, "line 2": {"sb2": 1}, "line 3": {"eiffel": 1}}
    ranking = {"line 1": ["sb1", "x-repeat", "x-bread"], "line 2": ["x-pats", "sb2"], "line 3": []}
    expected = _peer(qrels, ranking)
    rows = {row["case_id"]: row for row in result["per_case"]}
    for case, values in expected.items():
        for name, value in values.items():
            assert rows[case][name] == pytest.approx(value, abs=1e-12), (case, name)
    for name in PEER:
        score = result["scores"][name]
        mean = sum(v[name] for v in expected.values()) / len(expected)
        assert score["value"] == pytest.approx(mean, abs=1e-12)
        assert (score["numerator"], score["denominator"]) == (3, 4)
        entry = result["ledger"]["measures"][name]
        assert entry["left_out"] == {"no reference contexts": 1}
        assert entry["left_out_cases"] == {"no reference contexts": ["line 4"]}


def test_without_corpus_contexts_match_the_reference_contexts(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _json(["answers", str(data_dir / "answers_text" / "ragas_contexts.jsonl")], capsys)
    # line 1: the first context is the reference with a title before it (over 90% of its
    # shingles are the reference's: a near-duplicate); the second, a chunk of the reference,
    # is the same record again (repeated); the third matches nothing
    row = {r["case_id"]: r for r in result["per_case"]}["line 1"]
    assert row["contexts RR"] == 1.0 and row["contexts P@5"] == pytest.approx(0.2)
    assert result["context_matches"]["repeated"] == 1


def test_trace_documents_scored_against_a_judgment_set(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judgments = tmp_path / "qrels.jsonl"
    lines = [
        {
            "query_id": "q1",
            "query": "When was the first Super Bowl played?",
            "relevant": {"SB1": 1},
        },
        {"query_id": "q2", "query": "Who won Super Bowl II?", "relevant": {"SB2": 2, "SB9": 1}},
    ]
    judgments.write_text("".join(json.dumps(line) + "\n" for line in lines))
    traces = data_dir / "answers_text" / "traces.json"
    result = _json(["answers", str(traces), "--judgments", str(judgments)], capsys)
    first, second = "0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"
    qrels = {first: {"SB1": 1}, second: {"SB2": 2, "SB9": 1}}
    expected = _peer(qrels, {first: ["SB1", "SB2"], second: ["SB2"]})
    rows = {row["case_id"]: row for row in result["per_case"]}
    for case, values in expected.items():
        for name, value in values.items():
            assert rows[case][name] == pytest.approx(value, abs=1e-12), (case, name)
    assert result["context_matches"]["id"] == 3
    # the second trace has no LLM span: left out of the answer measures, not of the contexts
    assert result["ledger"]["measures"]["token_f1"]["left_out"] == {
        "no reference": 1,
        "no LLM span": 1,
    }
    assert result["ledger"]["measures"]["contexts RR"]["scored"] == 2


def test_trace_without_retriever_is_left_out_with_its_reason(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = json.loads((data_dir / "answers_text" / "traces.json").read_text("utf-8"))
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    export["resourceSpans"][0]["scopeSpans"][0]["spans"] = [
        s for s in spans if s["spanId"] != "00f067aa0ba902b7"
    ]
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(export))
    judgments = tmp_path / "qrels.jsonl"
    judgments.write_text(
        json.dumps(
            {
                "query_id": "q1",
                "query": "When was the first Super Bowl played?",
                "relevant": {"SB1": 1},
            }
        )
        + "\n"
    )
    result = _json(["answers", str(traces), "--judgments", str(judgments)], capsys)
    assert result["ledger"]["measures"]["contexts RR"]["left_out"] == {
        "no retriever span": 1,
        "no judgments for the question": 1,
    }


def test_options_for_free_text_refused_on_structured_cases(
    examples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = str(examples_dir / "answers" / "cases.jsonl")
    code, _, err = run(["answers", cases, "--similarity", "default", "--no-record"], capsys)
    assert code == 2 and "--similarity compares free-text answers with references" in err
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "query": "x", "relevant": {"d": 1}}\n')
    code, _, err = run(["answers", cases, "--judgments", str(qrels), "--no-record"], capsys)
    assert code == 2 and "a judgment set scores the contexts of free-text cases" in err
