"""Systems under test: the protocol, built-in systems, the runner and the run cache."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "AbstentionReport": "assay.systems.abstain",
        "FunctionSystem": "assay.systems.base",
        "Hit": "assay.systems.base",
        "RunCache": "assay.systems.cache",
        "RunOutcome": "assay.systems.runner",
        "System": "assay.systems.base",
        "abstention_report": "assay.systems.abstain",
        "build_system": "assay.systems.config",
        "config_hash": "assay.systems.base",
        "register_system_type": "assay.systems.config",
        "run_system": "assay.systems.runner",
        "system_types": "assay.systems.config",
    },
    globals(),
)
