"""``report``: a saved result file of any kind -> its result model, to render again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.results.models import read_result_file

if TYPE_CHECKING:  # pragma: no cover
    from assay.answers.result import AnswersResult
    from assay.behavior.implicit import ImplicitJudgments
    from assay.generate.queries import SyntheticQueries
    from assay.judges.cases import AnswersGradeResult, ClaimsResult
    from assay.judges.pairwise import PairwiseJudgeResult
    from assay.judges.panel import RubricJudgeResult
    from assay.judges.relevance import JudgeJob
    from assay.matrix.result import MatrixResult
    from assay.procedures.agreement import AgreementResult
    from assay.procedures.calibration import CalibrationResult
    from assay.procedures.gate_result import GateResult
    from assay.procedures.validation import ValidationResult
    from assay.procedures.verification import VerifyResult
    from assay.results.models import EvaluationResult
    from assay.stats.models import ComparisonResult
    from assay.store.history import HistoryReport
    from assay.tuning.result import TuningResult


def read_result(
    path: str | Path,
) -> (
    EvaluationResult
    | ComparisonResult
    | AnswersResult
    | GateResult
    | VerifyResult
    | MatrixResult
    | HistoryReport
    | AgreementResult
    | CalibrationResult
    | JudgeJob
    | ClaimsResult
    | AnswersGradeResult
    | ImplicitJudgments
    | SyntheticQueries
    | ValidationResult
    | RubricJudgeResult
    | PairwiseJudgeResult
    | TuningResult
):
    """The result file at ``path`` (JSON, or a Parquet evaluation) as its kind's model.

    Every kind of :data:`assay.results.models.RESULT_MODELS` is read (older schema
    versions migrated); errors name the file, line and field.
    """

    return read_result_file(path)  # type: ignore[no-any-return]
