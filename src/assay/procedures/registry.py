"""Every CLI command's one library procedure, named in one registry.

``COMMANDS`` maps a command as typed (``"judge llm"``) to the ``"module:function"``
its CLI body calls, once, between parsing the options and rendering the result.
The procedure takes the command's typed option models and returns a result
model (a registered kind of :data:`assay.results.models.RESULT_MODELS`, except the
commands listed in :data:`NO_RESULT`). ``tests/cli/test_cli_thin.py`` holds
every command to it.
"""

from __future__ import annotations

#: command -> "module:function" of the library procedure it calls.
COMMANDS: dict[str, str] = {
    "answers": "assay.procedures.answers:check_answers",
    "compare": "assay.procedures.comparison:compare",
    "evaluate": "assay.procedures.evaluation:evaluate",
    "fuse": "assay.procedures.fusion:fuse",
    "gate": "assay.procedures.gating:gate",
    "generate queries": "assay.procedures.generation:generate_query_file",
    "history": "assay.store.history:read_history",
    "judge agree": "assay.procedures.agreement:agreement",
    "judge answers": "assay.procedures.judging:judge_answers",
    "judge calibrate": "assay.procedures.calibration:calibrate",
    "judge claims": "assay.procedures.judging:judge_claims",
    "judge clicks": "assay.behavior.implicit:judge_clicks",
    "judge export": "assay.procedures.judging_files:export_store",
    "judge import": "assay.procedures.judging_files:import_judgments",
    "judge llm": "assay.procedures.judging:judge_relevance",
    "judge pairwise": "assay.procedures.declared_judges:judge_pairwise",
    "judge pool": "assay.procedures.judging_files:pool_file",
    "judge rubric": "assay.procedures.declared_judges:judge_rubric",
    "judge sample": "assay.procedures.judging_files:review_sample_file",
    "judge sample-queries": "assay.procedures.judging_files:query_set_file",
    "judge serve": "assay.procedures.judging_files:judging_page",
    "matrix": "assay.procedures.matrix_run:run_matrix_file",
    "report": "assay.procedures.result_files:read_result",
    "run": "assay.procedures.running:run_to_file",
    "schema config": "assay.procedures.config_schema:config_json_schema",
    "schema matrix": "assay.procedures.config_schema:matrix_json_schema",
    "serve": "assay.procedures.serving:serve_system",
    "trec-eval": "assay.procedures.treceval:trec_eval",
    "tune": "assay.procedures.tuning:tune",
    "validate": "assay.procedures.validation:validate_files",
    "verify-suite": "assay.procedures.verification:verify_suite",
    "view": "assay.view.launch:open_view",
}

#: Commands whose procedure returns no result model: a server, or data files
#: (a run, a pool, judgments, a query set, a JSON Schema) the command writes.
NO_RESULT: frozenset[str] = frozenset(
    {
        "fuse",
        "judge export",
        "judge import",
        "judge pool",
        "judge sample",
        "judge sample-queries",
        "judge serve",
        "run",
        "schema config",
        "schema matrix",
        "serve",
        "trec-eval",  # trec_eval's own text, byte for byte
        "view",
    }
)
