"""``assay judge rubric|pairwise``: judges declared in a TOML file, one model or a jury."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli import options as o
from assay.cli.common import finish
from assay.cli.judge import judge_app
from assay.cli.judge_models import _format
from assay.cli.model_options import (
    calls_emitter,
    judge_call_options,
)

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.model_options import ModelCallOptions

JudgeOpt = Annotated[
    Path, typer.Option("--judge", help="Judge file (TOML): [judge] and its [criteria.NAME].")
]
#: As ``judge answers``: the result file and the table as text (the commands call models).
Outputs = Annotated[
    list[Path] | None,
    typer.Option(
        "-o",
        "--output",
        help="Write the result to FILE.json (the result file), FILE.txt (the table as text). "
        "Repeatable.",
    ),
]
ModelsOpt = Annotated[
    str | None,
    typer.Option("--model", help="A [models.NAME] replacing the judge file's models."),
]


@judge_app.command("rubric")
@judge_call_options
def rubric(
    items: Annotated[Path, typer.Argument(help="Items (JSONL): id and the template's fields.")],
    judge: JudgeOpt,
    model: ModelsOpt = None,
    fmt: o.kind_format("rubric_judge") = None,  # type: ignore[valid-type]
    output: Outputs = None,
    *,
    calls: ModelCallOptions,
    samples: int,
) -> None:
    """Score every item on every criterion of a rubric judge; agreement per criterion.

    Exit 1 when the budget stopped the run, more calls failed than --max-failed,
    or nothing could be scored.
    """
    from assay.procedures.declared_judges import DeclaredJudgeOptions, judge_rubric

    fmt = _format(fmt, output, "rubric_judge")
    options = DeclaredJudgeOptions(samples=samples)
    result = judge_rubric(items, judge, calls=calls, options=options)
    finish(result, fmt, output, max_failed=calls.max_failed, emitter=calls_emitter())


@judge_app.command("pairwise")
@judge_call_options
def pairwise(
    pairs: Annotated[
        Path, typer.Argument(help="Pairs (JSONL): id, a, b and the template's fields.")
    ],
    judge: JudgeOpt,
    model: ModelsOpt = None,
    fmt: o.kind_format("pairwise_judge") = None,  # type: ignore[valid-type]
    output: Outputs = None,
    *,
    calls: ModelCallOptions,
    samples: int,
) -> None:
    """Ask every pair in both orders; verdicts, position bias, agreement.

    Exit 1 when the budget stopped the run, more calls failed than --max-failed,
    or nothing could be scored.
    """
    from assay.procedures.declared_judges import DeclaredJudgeOptions, judge_pairwise

    fmt = _format(fmt, output, "pairwise_judge")
    options = DeclaredJudgeOptions(samples=samples)
    result = judge_pairwise(pairs, judge, calls=calls, options=options)
    finish(result, fmt, output, max_failed=calls.max_failed, emitter=calls_emitter())
