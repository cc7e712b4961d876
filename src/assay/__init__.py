"""assay: tell, with evidence, whether a search or RAG system got better or worse.

The public API is what ``__all__`` lists. Importing assay is cheap: heavy
modules load on first use.

>>> import assay  # doctest: +SKIP
>>> judgments = assay.load_judgments("qrels.jsonl")  # doctest: +SKIP
>>> result = assay.evaluate(judgments, "run.trec", ["nDCG@10", "RR"])  # doctest: +SKIP
>>> runs = {"bm25": "bm25.trec", "hybrid": "hybrid.trec"}  # doctest: +SKIP
>>> report = assay.compare(judgments, runs)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_LAZY = {
    # procedures
    "evaluate": "assay.procedures.evaluation",
    "compare": "assay.procedures.comparison",
    "gate": "assay.procedures.gating",
    "verify_suite": "assay.procedures.verification",
    "score_answers": "assay.answers.score",
    "ScoringOptions": "assay.procedures.options",
    "SourceOptions": "assay.procedures.options",
    "EvaluationOptions": "assay.procedures.procedure_options",
    "ComparisonOptions": "assay.procedures.procedure_options",
    "GateOptions": "assay.procedures.procedure_options",
    "PairedTestOptions": "assay.procedures.procedure_options",
    # inputs
    "load_judgments": "assay.judgments.load",
    "load_run": "assay.runs.io",
    "load_cases": "assay.answers.load",
    "JudgmentSet": "assay.judgments.models",
    "Run": "assay.runs.models",
    "Measure": "assay.metrics.measures",
    "parse_measure": "assay.metrics.measures",
    # systems and storage
    "System": "assay.systems.base",
    "Hit": "assay.systems.base",
    "Store": "assay.store.api",
    "open_store": "assay.store.api",
    # results
    "ResultModel": "assay.results.models",
    "EvaluationResult": "assay.results.models",
    "QueryRow": "assay.results.perquery",
    "NoAnswerRow": "assay.results.models",
    "RunInfo": "assay.results.models",
    "JudgmentsInfo": "assay.results.models",
    "Failure": "assay.results.models",
    "Latency": "assay.results.models",
    "Abstention": "assay.results.models",
    "Policy": "assay.results.models",
    "read_result_file": "assay.results.models",
    "ComparisonResult": "assay.stats.models",
    "GateResult": "assay.procedures.gate_result",
    "GateCheck": "assay.procedures.gate_result",
    "VerifyResult": "assay.procedures.verification",
    "VerifyCheck": "assay.procedures.verification",
    "AnswersResult": "assay.answers.result",
    # errors
    "AssayError": "assay.core.errors",
    "UsageError": "assay.core.errors",
    "InputError": "assay.core.errors",
    "SystemCallError": "assay.core.errors",
    "Problem": "assay.core.errors",
}

__all__ = [
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
]

if TYPE_CHECKING:  # pragma: no cover
    from assay.answers.load import load_cases
    from assay.answers.result import AnswersResult
    from assay.answers.score import score_answers
    from assay.core.errors import AssayError, InputError, Problem, SystemCallError, UsageError
    from assay.judgments.load import load_judgments
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure, parse_measure
    from assay.procedures.comparison import compare
    from assay.procedures.evaluation import evaluate
    from assay.procedures.gate_result import GateCheck, GateResult
    from assay.procedures.gating import gate
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.procedure_options import (
        ComparisonOptions,
        EvaluationOptions,
        GateOptions,
        PairedTestOptions,
    )
    from assay.procedures.verification import VerifyCheck, VerifyResult, verify_suite
    from assay.results.models import (
        Abstention,
        EvaluationResult,
        Failure,
        JudgmentsInfo,
        Latency,
        NoAnswerRow,
        Policy,
        ResultModel,
        RunInfo,
        read_result_file,
    )
    from assay.results.perquery import QueryRow
    from assay.runs.io import load_run
    from assay.runs.models import Run
    from assay.stats.models import ComparisonResult
    from assay.store.api import Store, open_store
    from assay.systems.base import Hit, System


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
