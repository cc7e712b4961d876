"""Procedures: each a library function with a typed result, the CLI's only door.

``evaluate`` (judgments, run -> EvaluationResult), ``compare`` (-> ComparisonResult),
``gate`` (-> GateResult) and ``verify_suite`` (-> VerifyResult) read every run through
:func:`load_source` (run file + sidecar, result file or live system)."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "ComparisonOptions": "assay.procedures.procedure_options",
        "EvaluationOptions": "assay.procedures.procedure_options",
        "GateCheck": "assay.procedures.gate_result",
        "GateOptions": "assay.procedures.procedure_options",
        "PairedTestOptions": "assay.procedures.procedure_options",
        "GateResult": "assay.procedures.gate_result",
        "RunProvenance": "assay.procedures.sources",
        "ScoringOptions": "assay.procedures.options",
        "Source": "assay.procedures.sources",
        "SourceOptions": "assay.procedures.options",
        "VerifyCheck": "assay.procedures.verification",
        "VerifyResult": "assay.procedures.verification",
        "compare": "assay.procedures.comparison",
        "evaluate": "assay.procedures.evaluation",
        "evaluate_sources": "assay.procedures.comparison",
        "gate": "assay.procedures.gating",
        "load_source": "assay.procedures.sources",
        "read_run_file": "assay.procedures.sources",
        "resolve_baseline": "assay.procedures.gating",
        "run_gate": "assay.procedures.gating",
        "run_live": "assay.procedures.sources",
        "score": "assay.procedures.evaluation",
        "score_run": "assay.procedures.evaluation",
        "shuffle_run": "assay.procedures.verification",
        "verify_results": "assay.procedures.verification",
        "verify_suite": "assay.procedures.verification",
    },
    globals(),
)
