"""assay.matrix: system prompts x models x fixed evidence, asked N times, asserted per case.

``load_matrix`` reads a matrix file, ``run_matrix`` runs it into a
:class:`MatrixResult` (cells, pass^N, flaky cells, costs, paired comparisons,
pass@k and pass^k).
Names load lazily so that importing the package stays cheap.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "ASSERTIONS": "assay.matrix.assertions",
        "MatrixConfig": "assay.matrix.config",
        "load_matrix": "assay.matrix.config",
        "MatrixResult": "assay.matrix.result",
        "pass_at_k": "assay.matrix.reliability",
        "pass_hat_k": "assay.matrix.reliability",
        "run_matrix": "assay.matrix.runner",
    },
    globals(),
)
