"""Implicit judgments on the shared UBI sample: counts against the raw events, the position
check, the CLI end to end (judge clicks -> evaluate), sampled query sets and agreement.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from assay.behavior import judge_clicks, overlapping_pairs, sample_queries
from assay.behavior.read import read_ubi
from assay.behavior.table import build_click_table
from assay.core.errors import InputError
from assay.judgments import load_judgments


@pytest.fixture(scope="module")
def ndjson(shared_data: Path) -> Path:
    return shared_data / "ubi_chorus" / "ubi_queries_events.ndjson"


def _raw_counts(path: Path, application: str, base: int, actions: set[str]):
    """Impressions and acted-on instances per (query, doc), straight from the JSON lines.

    The rule counted: a query_id's page is drawn again when another document
    arrives at a rank already shown; an action goes to the latest drawing
    before it that shows its document.
    """
    text: dict[str, str] = {}
    hits: dict[str, tuple[str, list[str]]] = {}
    drawings: list[dict] = []  # {"qid", "text", "docs": {doc: rank}, "at": {rank: doc}, "n"}
    latest: dict[str, dict] = {}
    acts: list[tuple[int, str, str]] = []
    index = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        d = json.loads(line)
        if "index" in d:
            index = d["index"]["_index"]
            continue
        if d.get("application") != application:
            continue
        if index == "ubi_queries":
            text.setdefault(d["query_id"], d["user_query"])
            if d.get("query_response_hit_ids") and d["query_id"] not in hits:
                hits[d["query_id"]] = (d["user_query"], d["query_response_hit_ids"])
            continue
        if d.get("user_query") is not None:
            text.setdefault(d["query_id"], d["user_query"])
        attrs = d.get("event_attributes") or {}
        oid = (attrs.get("object") or {}).get("object_id")
        if d["action_name"] == "impression":
            rank = attrs["position"]["ordinal"] - base
            cur = latest.get(d["query_id"])
            if cur is None or cur["at"].get(rank, oid) != oid:
                cur = {"qid": d["query_id"], "text": d.get("user_query"), "docs": {}, "at": {}}
                cur["n"] = n
                latest[d["query_id"]] = cur
                drawings.append(cur)
            cur["docs"].setdefault(oid, rank)
            cur["at"].setdefault(rank, oid)
        elif d["action_name"] in actions:
            acts.append((n, d["query_id"], oid))
    for qid, (query, ids) in hits.items():
        if qid not in latest:
            drawings.append({"qid": qid, "text": query, "docs": dict.fromkeys(ids), "n": 0})
    acted: set[tuple[int, str]] = set()
    for n, qid, oid in acts:
        showing = [i for i, dr in enumerate(drawings) if dr["qid"] == qid and oid in dr["docs"]]
        before = [i for i in showing if drawings[i]["n"] <= n]
        if showing:
            acted.add(((before or showing)[-1], oid))
    impressions: dict[tuple[str, str], int] = defaultdict(int)
    clicks: dict[tuple[str, str], int] = defaultdict(int)
    for i, dr in enumerate(drawings):
        raw = dr["text"] if dr["text"] is not None else text.get(dr["qid"], "")
        key = "_".join(raw.lower().split())
        if not key:
            continue
        for doc in dr["docs"]:
            impressions[(key, doc)] += 1
            clicks[(key, doc)] += (i, doc) in acted
    return dict(impressions), dict(clicks)


@pytest.mark.parametrize(("application", "base"), [("esci_ubi_sample", 0), ("Chorus", 1)])
def test_counts_equal_an_independent_count(ndjson: Path, application: str, base: int) -> None:
    weights = {"click": 1.0, "add_to_cart": 1.0}
    table = build_click_table(
        read_ubi(ndjson), positions=base, application=application, weights=weights
    )
    impressions, clicks = _raw_counts(ndjson, application, base, set(weights))
    ours_i = dict(zip(table.pairs, table.pair_impressions().tolist(), strict=True))
    ours_c = dict(zip(table.pairs, table.pair_clicks().tolist(), strict=True))
    assert ours_i == impressions
    assert ours_c == {k: float(v) for k, v in clicks.items()}
    assert sum(impressions.values()) > 900 and sum(clicks.values()) > 50


def test_positions_are_checked_against_the_log(ndjson: Path) -> None:
    with pytest.raises(InputError) as info:
        judge_clicks(ndjson, positions=1)  # the ESCI sample counts from 0
    assert str(info.value.problems[0]).startswith(
        f"{ndjson}:402: [event_attributes.position.ordinal] position 0 in a log declared 1-based"
    )
    with pytest.raises(InputError) as info:
        judge_clicks(ndjson, positions=0, application="Chorus")  # Chorus counts from 1
    assert "no impression of 999 is at position 0" in str(info.value)
    result = judge_clicks(ndjson, positions=0, application="esci_ubi_sample")
    assert result.assumptions[0] == (
        "positions are 0-based (checked against 1000 impressions and 0 action positions on "
        "returned lists)"
    )


def test_positions_of_returned_lists_are_checked_by_action_positions(shared_data: Path) -> None:
    zipped = shared_data / "ubi_chorus" / "log_events.zip"  # no impression events
    with pytest.raises(InputError) as info:
        judge_clicks(zipped, positions=0, weights={"item_click": 1.0})
    assert str(info.value.problems[0]) == (
        f"{zipped}:log_events_new.json:12: [event_attributes.position.ordinal] position 10 of "
        "'3760170840499', number 10 of its returned list (as are all 832 action positions): the "
        "log is not 0-based (declare --positions 1)"
    )
    result = judge_clicks(zipped, positions=1, weights={"item_click": 1.0}, model="ctr")
    assert result.counts["from_hit_ids"] == 859 and result.counts["hit_list_positions"] == 832


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=os.environ | {"ASSAY_RECORD": "0"},
    )


def test_judge_clicks_then_evaluate_end_to_end(ndjson: Path, tmp_path: Path) -> None:
    import pytrec_eval

    out = _cli(
        "judge", "clicks", str(ndjson), "--positions", "1", "--application", "Chorus",
        "--model", "pbm", "--min-impressions", "2", "--weight", "add_to_cart=0.5",
        "-o", "implicit.jsonl", "--stats", "pairs.csv", "--json", "result.json", "-o", "-",
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "bias assumptions:" in out.stdout and "positions are 1-based" in out.stdout
    js = load_judgments(tmp_path / "implicit.jsonl")
    assert {q.metadata["source"] for q in js} == {"behavior"}
    with open(tmp_path / "pairs.csv", newline="") as f:
        stats = list(csv.DictReader(f))
    graded = [r for r in stats if r["grade"] != ""]
    assert all(int(r["grade_low"]) <= int(r["grade"]) <= int(r["grade_high"]) for r in graded)
    assert all(int(r["impressions"]) >= 2 for r in graded)
    assert {(r["query_id"], r["doc_id"]) for r in graded} >= set(
        map(tuple, js.qrels[["query_id", "doc_id"]].to_numpy().tolist())
    )
    # a run from the logged result lists: each query's first instance, in rank order
    table = build_click_table(read_ubi(ndjson), positions=1, application="Chorus")
    run: dict[str, dict[str, float]] = {}
    for i, q in enumerate(table.instance_query.tolist()):
        key = table.query_keys[q]
        if key in js.query_ids and key not in run:
            docs = [table.pairs[p][1] for p in table.docs[i].tolist() if p >= 0]
            run[key] = {d: float(len(docs) - r) for r, d in enumerate(docs)}
    lines = [f"{q} Q0 {d} {r + 1} {s} logged" for q, ds in run.items() for r, (d, s) in
             enumerate(ds.items())]  # fmt: skip
    (tmp_path / "run.tsv").write_text("\n".join(lines) + "\n")
    ev = _cli("evaluate", "implicit.jsonl", "run.tsv", "-m", "nDCG@10", "--format", "json",
              "-o", "eval.json", cwd=tmp_path)  # fmt: skip
    assert ev.returncode == 0, ev.stderr
    result = json.loads((tmp_path / "eval.json").read_text())
    oracle = pytrec_eval.RelevanceEvaluator(js.qrels_dict(), {"ndcg_cut.10"}).evaluate(run)
    expected = sum(v["ndcg_cut_10"] for v in oracle.values()) / len(js.answerable_ids)
    assert result["aggregate"]["nDCG@10"] == pytest.approx(expected, abs=1e-12)


def test_sample_queries(ndjson: Path, tmp_path: Path, shared_data: Path) -> None:
    log = read_ubi(ndjson)
    searches: dict[str, set[str]] = defaultdict(set)
    for rec in (*log.queries, *log.events):
        if rec.query_id and rec.user_query and rec.user_query.strip():
            searches["_".join(rec.user_query.lower().split())].add(rec.query_id)
    ranked = sorted(searches, key=lambda k: (-len(searches[k]), k))
    top = sample_queries(ndjson, strategy="top", n=5)
    assert [k for k, _, _ in top] == ranked[:5]
    assert [n for _, _, n in top] == [len(searches[k]) for k in ranked[:5]]
    pps = sample_queries(ndjson, strategy="pptss", n=20, seed=3)
    assert len({k for k, _, _ in pps}) == 20
    assert pps == sample_queries(ndjson, strategy="pptss", n=20, seed=3)
    total = sum(len(v) for v in searches.values())
    assert {k for k in searches if len(searches[k]) >= total / 20} <= {k for k, _, _ in pps}
    assert min(n for _, _, n in pps) <= 2  # the tail is represented too
    out = _cli("judge", "sample-queries", str(ndjson), "--strategy", "random", "--n", "7",
               "-o", "qs.json", cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    qs = load_judgments(tmp_path / "qs.json")
    assert qs.format == "srw-queries" and len(qs) == 7


def test_agreement_with_esci_on_overlapping_pairs(
    ndjson: Path, shared_data: Path, report_figure
) -> None:
    from sklearn.metrics import cohen_kappa_score

    esci = load_judgments(shared_data / "ubi_chorus" / "esci_us_judgments.json")
    result = judge_clicks(ndjson, positions=0, application="esci_ubi_sample", min_impressions=1)
    implicit = result.to_judgment_set()
    pairs = overlapping_pairs(esci, implicit)
    ref, imp = esci.qrels_dict(), implicit.qrels_dict()
    independent = {(q, d) for q in ref.keys() & imp.keys() for d in ref[q].keys() & imp[q].keys()}
    assert {(p.query_id, p.doc_id) for p in pairs} == independent
    assert all(p.reference == ref[p.query_id][p.doc_id] for p in pairs)
    assert len(pairs) == 36 and len({p.query_id for p in pairs}) == 8
    kappa = cohen_kappa_score([p.reference for p in pairs], [p.implicit for p in pairs])
    # no overlapping pair was ever clicked: every implicit grade is 0, so kappa is 0
    assert {p.implicit for p in pairs} == {0}
    assert kappa == pytest.approx(0.0)
    report_figure(
        f"implicit (PBM, ESCI UBI sample) vs ESCI: {len(pairs)} overlapping pairs, "
        f"Cohen's kappa {kappa:.3f}"
    )
    art = load_judgments(shared_data / "ubi_chorus" / "art_judgments.json")
    chorus = judge_clicks(ndjson, positions=1, application="Chorus", min_impressions=1)
    llm = overlapping_pairs(art, chorus.to_judgment_set())
    k2 = cohen_kappa_score([p.reference for p in llm], [p.implicit for p in llm])
    assert len(llm) == 18
    report_figure(f"implicit (PBM, Chorus log) vs LLM judgments: {len(llm)} pairs, kappa {k2:.3f}")


@pytest.mark.parametrize("model", ["ctr", "coec", "pbm", "dbn"])
def test_every_model_grades_within_its_interval(ndjson: Path, model: str) -> None:
    result = judge_clicks(ndjson, positions=1, application="Chorus", model=model)
    graded = result.graded()
    assert graded and result.counts["graded_pairs"] == len(graded)
    for p in graded:
        assert p.low <= p.estimate + 1e-12 and p.estimate <= p.high + 1e-12
        assert 0 <= p.grade_low <= p.grade <= p.grade_high <= 3
        assert p.impressions >= result.min_impressions
    assert any(model.upper() in a or model in a for a in result.assumptions) or model == "ctr"
    again = type(result).model_validate_json(result.to_json())
    assert again.pairs == result.pairs
