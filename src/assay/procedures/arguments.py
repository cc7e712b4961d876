"""The argument checks of the procedures, and judgments from whatever names them.

:func:`evaluate <assay.procedures.evaluation.evaluate>`, compare, gate and
verify-suite check their arguments here, the same way through the library
and the command line: the judgments come first (:func:`check_order`), ``k``
is a whole number, the policies are known, a set mixing synthetic and
people's queries is refused unless asked for (:func:`synthetic_groups`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.core.policies import check_policies
from assay.judges.labels import is_label_file, labels_as_judgments
from assay.judgments.load import load_judgments
from assay.judgments.models import JudgmentSet
from assay.metrics.depth import check_depth
from assay.metrics.measures import parse_measures
from assay.procedures.sources import as_system
from assay.procedures.validation import detect_kind
from assay.runs.models import Run

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure


def prepare(
    judgments: Any,
    run: Any,
    metrics: Iterable[str | Measure] | None,
    by: Iterable[str] | str,
    missing: str,
    ties: str,
    k: int,
    judgments_format: str | None,
    prefer: str | None,
    mix_synthetic: bool,
    load: Mapping[str, Any] | None = None,
) -> tuple[JudgmentSet, list[Measure], list[str]]:
    """:func:`evaluate`'s checks of its arguments, then the loaded judgments (``load``: the
    keywords of :func:`as_judgments`, such as ``queries``, ``split``, ``corpus_ids``)."""

    check_order(judgments, run)
    check_policies(missing, ties)
    check_k(k)
    measures = parse_measures(list(metrics) if metrics is not None else None)
    if as_system(run) is not None:
        check_depth(measures, asked=k)  # R@1000 of a system asked for 100: before any call
    by_fields = [by] if isinstance(by, str) else list(by)
    js = as_judgments(judgments, judgments_format, prefer=prefer, **(load or {}))
    by_fields = synthetic_groups(js, by_fields, mix_synthetic)
    for field_name in by_fields:
        js.groups(field_name)  # raises a UsageError naming the fields available
    return js, measures, by_fields


def synthetic_groups(judgments: JudgmentSet, by: Sequence[str], mix_synthetic: bool) -> list[str]:
    """The ``by`` fields, with ``synthetic`` added when the set mixes model-written queries
    with people's, so that the two are always reported apart.

    Synthetic queries reuse their documents' words and score high, so such a set
    is refused unless ``mix_synthetic`` (a :class:`UsageError` naming it).
    """
    n = len(judgments.synthetic_ids)
    if n in (0, len(judgments)):
        return list(by)
    if not mix_synthetic:
        raise UsageError(
            f"{judgments.name}: {n} of {len(judgments)} queries are synthetic (model-written) and "
            "score high on the words they share with their documents; they are not averaged "
            "with people's queries: evaluate them apart, or pass `mix_synthetic` to score both, "
            "reported apart (group 'synthetic')",
            "mix_synthetic",
        )
    return list(by) if "synthetic" in by else [*by, "synthetic"]


def check_k(k: Any) -> None:
    """Raise a UsageError unless ``k`` is a whole number >= 1."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        at_least("k", k)


def check_order(judgments: Any, run: Any) -> None:
    """A one-line error when the run was given first and the judgments second."""
    if isinstance(judgments, str | Path) and isinstance(run, str | Path):
        # two paths (the CLI): decided from the files, before pandas is loaded
        swapped = _kinds(judgments, run) == ("run", "judgments")
    else:
        swapped = isinstance(run, JudgmentSet) and not isinstance(judgments, JudgmentSet)
        swapped = swapped or isinstance(judgments, Run | Mapping) or callable(judgments)
    if swapped:
        raise UsageError(
            "the arguments look swapped: the judgments come first, then the run "
            "(assay evaluate JUDGMENTS RUN; evaluate(judgments, run) as in ranx and ir_measures)"
        )


def _kinds(first: str | Path, second: str | Path) -> tuple[str, str] | None:

    if Path(first).is_dir():
        return None
    try:
        return detect_kind(first), detect_kind(second)
    except Exception:  # a heuristic only: the loaders report real problems
        return None


def as_judgments(
    judgments: Any, fmt: str | None = None, *, prefer: str | None = None, **options: Any
) -> JudgmentSet:
    """``judgments`` as a JudgmentSet: one already loaded, or a path to load.

    A path is a judgment set in any format, or a pair-label / review file as
    ``assay judge llm`` and ``judge sample`` write them; where such a file has a
    human and a model label for one pair, ``prefer`` (``human`` or ``model``)
    says which wins, else it is refused. ``options`` go to
    :func:`~assay.judgments.load.load_judgments` (``queries``, ``split``,
    ``corpus_ids``).
    """

    if isinstance(judgments, JudgmentSet):
        return judgments
    if isinstance(judgments, str | Path):
        if fmt is None and is_label_file(judgments):
            return labels_as_judgments(judgments, prefer=prefer)
        return load_judgments(judgments, format=fmt, **options)
    raise UsageError(
        f"`judgments` must be a JudgmentSet or a path, got {type(judgments).__name__}",
        "judgments",
    )
