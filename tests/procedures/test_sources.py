"""The one source path: every kind of source becomes a run with typed provenance."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import assay
from assay.procedures.sources import RunProvenance, load_source

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "examples" / "statistics" / "questions.csv"
RUNS = ROOT / "tests" / "data" / "runs"


@pytest.fixture(scope="module")
def judgments() -> assay.JudgmentSet:
    return assay.load_judgments(QUESTIONS)


def test_run_file_brings_its_sidecar(judgments: assay.JudgmentSet) -> None:
    source = load_source(RUNS / "flaky.trec", judgments)
    p = source.provenance
    assert isinstance(p, RunProvenance) and source.result is None
    assert p.failed_query_ids == ["q01", "q07"] and p.failures[0].attempts == 1
    assert p.judgments_version == judgments.version and p.system["type"] == "python"
    assert p.latency_ms is not None and p.latency_ms.p50 is not None


def test_other_judgment_version_is_refused_naming_the_parameter(
    judgments: assay.JudgmentSet, tmp_path: Path
) -> None:
    run = tmp_path / "kw.trec"
    shutil.copy(RUNS / "keyword.trec", run)
    side = json.loads((RUNS / "keyword.trec.json").read_text(encoding="utf-8"))
    side["judgments_version"] = "sha256:0000000000000000"
    (tmp_path / "kw.trec.json").write_text(json.dumps(side), encoding="utf-8")
    with pytest.raises(assay.UsageError, match="`allow_version_mismatch`") as exc:
        load_source(run, judgments)
    assert exc.value.parameter == "allow_version_mismatch"
    allowed = load_source(run, judgments, allow_version_mismatch=True)
    assert allowed.provenance.warnings and "scored anyway" in allowed.provenance.warnings[0]


def test_result_files_only_where_asked(judgments: assay.JudgmentSet, tmp_path: Path) -> None:
    saved = tmp_path / "r.json"
    saved.write_text(assay.evaluate(judgments, RUNS / "keyword.trec", ["RR"]).to_json())
    assert load_source(saved, judgments, allow_results=True).result is not None
    with pytest.raises(assay.InputError):
        load_source(saved, judgments)  # evaluate scores runs, not results


def test_mappings_runs_functions_and_bad_sources(judgments: assay.JudgmentSet) -> None:
    assert load_source({"q01": ["FS_UNDERNOURISH_PCT"]}, judgments).run is not None
    run = assay.load_run(RUNS / "keyword.trec")
    assert load_source(run, judgments, name="kw").provenance.name == "kw"
    live = load_source(lambda text, k: [], judgments, name="nothing")
    assert live.provenance.queries_asked == len(judgments) and live.provenance.config_hash
    with pytest.raises(assay.UsageError, match="a run source must be"):
        load_source(42, judgments)
    with pytest.raises(assay.InputError, match="file not found"):
        load_source(RUNS / "absent.trec", judgments)
