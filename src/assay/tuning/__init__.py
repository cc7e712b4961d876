"""assay.tuning: parameters chosen by cross-validation over queries, the choice judged on
queries it never saw (``assay tune``).

:mod:`~assay.tuning.space` reads ``--param`` and applies a set to a system's table,
:mod:`~assay.tuning.runs` computes each set's run once (run cache, executor),
:mod:`~assay.tuning.folds` deals the folds and chooses per fold, and
:mod:`~assay.tuning.result` is the ``tuning`` result the procedure
(:func:`assay.procedures.tuning.tune`) returns. Names load lazily.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "TuningResult": "assay.tuning.result",
        "cross_validate": "assay.tuning.folds",
        "deal": "assay.tuning.folds",
        "grid": "assay.tuning.space",
        "parse_params": "assay.tuning.space",
    },
    globals(),
)
