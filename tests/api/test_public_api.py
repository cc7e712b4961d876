"""The public API is exactly what each package's ``__all__`` lists, and importing it is cheap."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import assay

#: Every package facade and its pinned ``__all__`` (update on purpose, never by accident).
EXPECTED = {
    "assay.core": [
        "AssayError",
        "InputError",
        "Problem",
        "ProblemLog",
        "SystemCallError",
        "UsageError",
    ],
    "assay.io": [
        "detect_format",
        "detect_kind",
        "write_bytes_atomic",
        "write_files_atomic",
        "write_text_atomic",
    ],
    "assay.results": [
        "EvaluationResult",
        "QueryRow",
        "ResultModel",
        "load_result",
        "read_result_file",
        "result_model",
    ],
    "assay.view": ["Catalog", "make_app", "render_history_html", "render_html"],
    "assay.web": ["CSP", "HEADERS", "secure", "template_env"],
    "assay": [
        "Abstention",
        "AnswersResult",
        "AssayError",
        "ComparisonOptions",
        "ComparisonResult",
        "EvaluationOptions",
        "EvaluationResult",
        "Failure",
        "GateCheck",
        "GateOptions",
        "GateResult",
        "Hit",
        "InputError",
        "JudgmentSet",
        "JudgmentsInfo",
        "Latency",
        "Measure",
        "NoAnswerRow",
        "PairedTestOptions",
        "Policy",
        "Problem",
        "QueryRow",
        "ResultModel",
        "Run",
        "RunInfo",
        "ScoringOptions",
        "SourceOptions",
        "Store",
        "System",
        "SystemCallError",
        "UsageError",
        "VerifyCheck",
        "VerifyResult",
        "__version__",
        "compare",
        "evaluate",
        "gate",
        "load_cases",
        "load_judgments",
        "load_run",
        "open_store",
        "parse_measure",
        "read_result_file",
        "score_answers",
        "verify_suite",
    ],
    "assay.procedures": [
        "ComparisonOptions",
        "EvaluationOptions",
        "GateCheck",
        "GateOptions",
        "GateResult",
        "PairedTestOptions",
        "RunProvenance",
        "ScoringOptions",
        "Source",
        "SourceOptions",
        "VerifyCheck",
        "VerifyResult",
        "compare",
        "evaluate",
        "evaluate_sources",
        "gate",
        "load_source",
        "read_run_file",
        "resolve_baseline",
        "run_gate",
        "run_live",
        "score",
        "score_run",
        "shuffle_run",
        "verify_results",
        "verify_suite",
    ],
    "assay.runs": [
        "FORMATS",
        "Run",
        "detect_format",
        "load_run",
        "read_sidecar",
        "sidecar_path",
        "write_run",
        "write_sidecar",
    ],
    "assay.store": [
        "HistoryEntry",
        "HistoryReport",
        "Store",
        "build_history",
        "index_columns",
        "open_store",
        "record_gate_quietly",
        "record_quietly",
    ],
    "assay.systems": [
        "AbstentionReport",
        "FunctionSystem",
        "Hit",
        "RunCache",
        "RunOutcome",
        "System",
        "abstention_report",
        "build_system",
        "config_hash",
        "register_system_type",
        "run_system",
        "system_types",
    ],
    "assay.tuning": ["TuningResult", "cross_validate", "deal", "grid", "parse_params"],
    "assay.stats": [
        "ComparisonResult",
        "bootstrap_ci_rows",
        "holm",
        "minimum_detectable_difference",
        "paired_bootstrap_ci",
        "paired_pvalues",
        "queries_needed",
        "randomization_pvalues",
    ],
    "assay.report": ["FORMATS_BY_KIND", "print_terminal"],
    "assay.judgments": ["FORMATS", "JudgmentSet", "Query", "detect_format", "load_judgments"],
    "assay.corpora": ["Corpus", "detect_format", "load_corpus", "read_corpus_ids"],
    "assay.answers": [
        "AnswerCase",
        "AnswersResult",
        "CaseSet",
        "Claim",
        "ClaimSupport",
        "ExpectedValue",
        "ExtractedNumber",
        "GroundedResponse",
        "ProvenanceCheck",
        "Score",
        "TextCase",
        "TextCaseSet",
        "check_numbers",
        "extract_numbers",
        "load_cases",
        "read_corpus_ids",
        "read_text_cases",
        "score_answers",
        "score_case",
        "score_cases",
        "score_text_cases",
    ],
    "assay.cli": ["app", "main", "script"],
    "assay.metrics": ["Measure", "aggregate", "compute", "parse_measure", "parse_measures"],
    "assay.behavior": [
        "ImplicitJudgments",
        "OverlapPair",
        "UbiEvent",
        "UbiLog",
        "UbiQuery",
        "judge_clicks",
        "overlapping_pairs",
        "read_ubi",
        "sample_queries",
    ],
    "assay.judges": [
        "ANSWER_CHECK",
        "AgreementResult",
        "AgreementStats",
        "CLAIM_SUPPORT",
        "CalibrationResult",
        "Grader",
        "GradingRun",
        "LabelTable",
        "PairwiseJudgeResult",
        "RELEVANCE",
        "RubricJudgeResult",
        "agreement",
        "calibrate",
        "cohen_kappa",
        "grade_answers",
        "grade_claims",
        "grade_items",
        "grade_relevance",
        "judge_pairwise",
        "judge_rubric",
        "krippendorff_alpha",
        "load_judge",
        "ppi_mean_interval",
        "read_labels",
        "resolve_sources",
        "review_sample",
    ],
    "assay.judging": [
        "JudgingStore",
        "PoolPair",
        "STRATEGIES",
        "build_pool",
        "read_pool",
        "write_pool",
    ],
    "assay.executors": [
        "EXECUTORS",
        "Executor",
        "ExecutorOptions",
        "current",
        "current_options",
        "options_from",
        "set_executor",
        "use",
    ],
    "assay.generate": ["QUERY_WRITER", "SyntheticQueries", "generate_queries"],
    "assay.matrix": [
        "ASSERTIONS",
        "MatrixConfig",
        "MatrixResult",
        "load_matrix",
        "pass_at_k",
        "pass_hat_k",
        "run_matrix",
    ],
    "assay.providers": [
        "Budget",
        "CallCache",
        "ChatAnswer",
        "ChatClient",
        "ModelConfig",
        "OfflineMiss",
        "ProviderError",
        "Usage",
        "get_model",
        "model_from_table",
    ],
}


@pytest.mark.parametrize("package", sorted(EXPECTED))
def test_all_is_pinned(package: str) -> None:
    assert sorted(importlib.import_module(package).__all__) == sorted(EXPECTED[package])


@pytest.mark.parametrize("package", sorted(EXPECTED))
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_every_subpackage_has_a_facade() -> None:
    from pathlib import Path

    root = Path(assay.__file__).parent
    packages = {f"assay.{p.parent.name}" for p in root.glob("*/__init__.py")}
    assert sorted(packages - set(EXPECTED)) == []


def test_unknown_attribute_raises() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        assay.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_thing"):
        importlib.import_module("assay.store").no_such_thing  # noqa: B018


def test_import_is_light() -> None:
    """`import assay`, its facades and the CLI's start-up load neither numpy nor pandas."""
    code = (
        "import sys, assay, assay.cli.app, assay.procedures, assay.store, assay.systems, "
        "assay.stats, assay.runs, assay.report;"
        "heavy = [m for m in ('numpy', 'pandas', 'scipy', 'sklearn', 'plotly', 'sqlalchemy')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_swapped_arguments_get_a_one_line_error() -> None:
    from assay.judgments.models import Query

    judgments = assay.JudgmentSet.from_records([Query("q1", "a")], {"q1": {"d1": 1}}, name="t")
    for run in ({"q1": ["d1"]}, assay.Run.from_dict({"q1": ["d1"]}), lambda text, k: ["d1"]):
        with pytest.raises(assay.UsageError) as exc:
            assay.evaluate(run, judgments)
        message = str(exc.value)
        assert "\n" not in message and "judgments come first" in message
    assert assay.evaluate(judgments, {"q1": ["d1"]}, ["RR"]).aggregate == {"RR": 1.0}
