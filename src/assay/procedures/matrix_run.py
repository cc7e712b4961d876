"""The generation matrix as a procedure: ``matrix CONFIG.toml [--gate-against BASELINE]``.

:func:`run_matrix_file` reads the matrix file, checks the baseline it gates on
before the first model call, asks every prompt x model x case, and gates the
result on the baseline; the :class:`~assay.matrix.result.MatrixResult` carries
the gate, so its :meth:`~assay.matrix.result.MatrixResult.exit_code` says whether
the run failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import UsageError
from assay.matrix import load_matrix, run_matrix
from assay.matrix.gate import check_baseline, gate_matrix
from assay.matrix.result import MatrixResult
from assay.procedures.model_options import ModelCallOptions, ProgressFactory
from assay.stats.corrections import check_correction

if TYPE_CHECKING:
    from assay.matrix.result import MatrixResult


class MatrixGateOptions(BaseModel):
    """Gate a matrix run on a baseline matrix result: pass-rate non-inferiority."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    against: Path | None = Field(None, description="the baseline matrix result (JSON) to gate on")
    margin: float = Field(0.05, description="pass rate a variant may lose, in [0, 1)")


def run_matrix_file(
    config: str | Path,
    *,
    calls: ModelCallOptions | None = None,
    gate: MatrixGateOptions | None = None,
    progress: ProgressFactory | None = None,
    correction: str | None = None,
) -> MatrixResult:
    """Run the matrix of ``config`` (models, budget and cases are the file's; ``calls`` gives
    the cache, offline replay and a ``max_cost`` replacing the file's); gate it on
    ``gate.against`` when given. ``progress(total)`` is entered around the calls.
    ``correction`` replaces the file's multiple-testing correction of the comparisons."""

    calls = calls or ModelCallOptions()
    gate = gate or MatrixGateOptions()
    if calls.model is not None:
        raise UsageError("a matrix names its models in its file; drop `model`", "model")
    cfg = load_matrix(config)
    if calls.max_cost is not None:
        cfg = dataclasses.replace(cfg, max_cost=calls.max_cost)
    if correction is not None:
        cfg = dataclasses.replace(cfg, correction=check_correction(correction))
    baseline = None
    if gate.against is not None:  # checked before the first model call
        baseline = MatrixResult.from_file(gate.against)
        check_baseline(baseline, cfg.cases_version, cfg.variants(), margin=gate.margin)
    total = len(cfg.prompts) * len(cfg.providers) * len(cfg.cases) * cfg.repeats
    shown = contextlib.nullcontext() if progress is None else progress(total)
    with calls.executor_in_force(), shown as on_attempt:
        result = run_matrix(
            cfg,
            cache_dir=None if calls.cache_dir is None else str(calls.cache_dir),
            offline=calls.offline,
            no_cache=calls.no_cache,
            on_attempt=on_attempt,
        )
    if baseline is not None:
        result.gate = gate_matrix(result, baseline, margin=gate.margin)
    return result
