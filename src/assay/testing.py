"""The gate as a test assertion: ``assert_gate`` fails a pytest (or unittest) test on a regression.

>>> from assay.testing import assert_gate  # doctest: +SKIP
>>> assert_gate("qrels.jsonl", "candidate.trec", baseline="baseline.json",
...             metrics=["nDCG@10"], margin=0.01)  # doctest: +SKIP

It runs :func:`assay.gate` in the test's process, with the same rule, numbers
and defaults as ``assay gate`` on the command line, and raises
:class:`AssertionError` whose message is the gate's Markdown report (the table of
measure, baseline, candidate, delta, interval and result, then the regressions in
words), so the failing test names the measure that regressed. A passing gate
returns its :class:`~assay.procedures.gate_result.GateResult` and prints nothing.

This module is not imported by ``import assay``: import it where the tests are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.io.formats import format_from_name
from assay.procedures.gating import gate
from assay.procedures.options import ScoringOptions, SourceOptions
from assay.procedures.procedure_options import GateOptions
from assay.report.gate_markdown import render_markdown

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.gate_result import GateResult

__all__ = ["assert_gate"]


def assert_gate(
    judgments: Any,
    run: str | Path | Callable[..., Any] | Any,
    *,
    baseline: Any,
    metrics: Iterable[str] = ("nDCG@10",),
    margin: float = 0.01,
    config: str | Path | None = None,
    **options: Any,
) -> GateResult:
    """Gate ``run`` against ``baseline`` on ``judgments``; raise AssertionError on a regression.

    ``judgments`` is a judgment set or a file :func:`assay.load_judgments` reads.
    ``run`` is the candidate: a run file (TREC or JSONL), a system's name in the
    assay.toml ``config`` (or a type, or ``module:function``), a Python callable
    ``f(query, k)`` returning doc ids (or hits), or anything :func:`assay.evaluate`
    scores. ``baseline`` is an evaluation result file (``assay evaluate ... -o
    baseline.json``), an :class:`~assay.results.models.EvaluationResult`, or a store run
    id. ``metrics`` and ``margin`` are those of ``assay gate``; ``options`` are
    the other keywords of :func:`assay.gate` (``by``, ``min_n``, ``alpha``, ``seed``,
    ``k``, ``max_failed``, ...) and, for a system named in ``config``, the
    :class:`~assay.procedures.options.SourceOptions` fields (``corpus``,
    ``no_cache``, ...). Bad input raises assay's usual errors (not AssertionError).
    Returns the :class:`~assay.procedures.gate_result.GateResult` of a passing gate.
    """
    candidate, source, rest = _candidate(run, config, dict(options))
    scoring, rule = _gate_options(margin, rest)
    result = gate(judgments, candidate, baseline, list(metrics), scoring, rule=rule, source=source)
    if not result.passed:
        raise AssertionError("\n" + render_markdown(result))
    return result


def _gate_options(margin: float, options: dict[str, Any]) -> tuple[ScoringOptions, GateOptions]:
    """The keywords ``options`` as :func:`assay.gate`'s option objects (an unknown one is a
    :class:`UsageError` naming it)."""
    scoring = {key: options.pop(key) for key in list(options) if key in ScoringOptions.model_fields}
    rule = {key: options.pop(key) for key in list(options) if key in GateOptions.model_fields}
    if options:
        unknown = sorted(options)
        raise UsageError(f"assert_gate takes no `{unknown[0]}`", unknown[0])
    return ScoringOptions(**scoring), GateOptions(margin=margin, **rule)


def _candidate(
    run: Any, config: str | Path | None, options: dict[str, Any]
) -> tuple[Any, SourceOptions | None, dict[str, Any]]:
    """The candidate for :func:`assay.gate`: ``run`` itself, or a system named in ``config``."""
    if not _names_a_system(run, config):
        if config is not None:
            raise UsageError("`config` declares systems: give a system's name as `run`", "config")
        return run, None, options
    fields = set(SourceOptions.model_fields) - {"system", "config"}
    chosen = {key: options.pop(key) for key in list(options) if key in fields}
    source = SourceOptions(system=str(run), config=Path(config) if config else None, **chosen)
    return None, source, options


def _names_a_system(run: Any, config: str | Path | None) -> bool:
    """True when ``run`` is a system's name, not a run file (a missing file stays a file)."""
    if not isinstance(run, str) or Path(run).exists():
        return False
    return config is not None or format_from_name(Path(run), "run") is None
