"""``assay compare``: is a candidate system better or worse than a baseline, with statistics?"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "markdown", "html", "csv")
Format = o.format_option(*FORMATS)
TESTS = ("randomization", "t", "wilcoxon", "bootstrap")
_RESULT_MARK = re.compile(rb'"kind"\s*:\s*"evaluation"')


def is_result_file(path: Path) -> bool:
    """True when ``path`` holds an EvaluationResult JSON (``assay evaluate -o``), not a run."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and bool(_RESULT_MARK.search(head))


def _evaluate_sources(
    judgments: Path,
    runs: list[Path],
    systems: list[str],
    *,
    metrics: list[str] | None,
    by: list[str],
    missing: str,
    ties: str,
    judgments_format: str | None,
    split: str,
    queries: Path | None = None,
    config: Path | None,
    corpus: Path | None,
    k: int,
    allow_version_mismatch: bool = False,
) -> list[Any]:
    """One EvaluationResult per run file, result file or --system, in that order."""
    from assay.cli.common import load_cli_judgments
    from assay.errors import InputError, Problem
    from assay.metrics.measures import parse_measures
    from assay.results import EvaluationResult

    measures = parse_measures(metrics)
    js = None
    results = []
    for path in runs:
        if not path.exists():
            raise InputError([Problem(str(path), None, "file not found", hint="check the path")])
        if is_result_file(path):
            results.append(EvaluationResult.from_file(path))
            continue
        if js is None:
            js = load_cli_judgments(judgments, judgments_format, split=split, queries=queries)
        from assay.evaluation import score_run
        from assay.runs.io import load_run
        from assay.runs.sidecar import run_info_from_sidecar

        info = run_info_from_sidecar(
            path, js.version, allow_version_mismatch=allow_version_mismatch
        )
        run = load_run(path)
        info.update({"name": run.name, "path": str(path)})
        results.append(score_run(run, js, measures, by, missing=missing, ties=ties, info=info))
    for spec in systems:
        from assay.cli.common import build_cli_system
        from assay.evaluation import run_live, score_run

        if js is None:
            js = load_cli_judgments(judgments, judgments_format, split=split, queries=queries)
        system = build_cli_system(spec, config=config, corpus=corpus)
        run, info = run_live(system, js, k=k, progress=True)
        results.append(score_run(run, js, measures, by, missing=missing, ties=ties, info=info))
    return results


def _emit(result: Any, fmt: str, output: Any) -> None:
    """Render ``result`` in ``fmt`` to stdout or to each ``-o`` file."""
    from assay.cli.common import emit
    from assay.report.compare_terminal import render_terminal

    def text(f: str) -> str:
        if f == "json":
            from assay.report.compare_json import render_json as render
        elif f == "markdown":
            from assay.report.compare_markdown import render_markdown as render
        elif f == "html":
            from assay.report.compare_html import render_html as render
        else:
            from assay.report.compare_csv import render_csv as render
        return render(result)

    emit(fmt, output, text=text, table=lambda c: render_terminal(result, c), choices=FORMATS)


@app.command()
def compare(
    judgments: Annotated[
        Path, typer.Argument(help="Judgment set: JSONL, CSV, JSON, TREC qrels or a BEIR folder.")
    ],
    runs: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Run files (TREC or JSONL) or result files from `assay evaluate -o x.json`. "
            "The first is the baseline unless --baseline says otherwise."
        ),
    ] = None,
    system: Annotated[
        list[str] | None,
        typer.Option(
            "--system", "-s", help="Also compare a live system (repeatable; see --config)."
        ),
    ] = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    k: o.Depth = 100,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="Baseline system name (default: the first).")
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Metric (repeatable). Default: R@5 R@10 RR nDCG@10."),
    ] = None,
    by: o.By = None,
    test: Annotated[
        str, typer.Option("--test", help="Paired test: randomization, t, wilcoxon or bootstrap.")
    ] = "randomization",
    alpha: Annotated[
        float, typer.Option("--alpha", help="Significance level for Holm-adjusted p-values.")
    ] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Seed of permutations and resamples.")] = 0,
    n_permutations: Annotated[
        int, typer.Option("--permutations", help="Random sign flips of the randomization test.")
    ] = 10000,
    n_resamples: Annotated[
        int, typer.Option("--resamples", help="Bootstrap resamples for the CIs.")
    ] = 10000,
    ci_method: Annotated[
        str, typer.Option("--ci", help="Bootstrap CI method: percentile | bca.")
    ] = "percentile",
    top: Annotated[int, typer.Option("--top", help="Largest losses and gains listed.")] = 5,
    fmt: Format = None,
    output: o.Output = None,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    store: o.Store = None,
    record: o.Record = True,
    quiet: o.Quiet = False,
) -> None:
    """Compare systems with a baseline: deltas, CIs, paired tests, Holm, slices, power."""
    from assay.cli.common import resolve_format, validate_choice
    from assay.errors import UsageError
    from assay.progress import set_quiet
    from assay.stats.compare import compare as run_compare

    set_quiet(quiet)
    fmt = resolve_format(fmt, output, FORMATS)
    validate_choice("--test", test, TESTS)
    validate_choice("--missing", missing, ("zero", "skip"))
    validate_choice("--ties", ties, ("score", "given"))
    validate_choice("--ci", ci_method, ("percentile", "bca"))
    run_paths = list(runs or [])
    systems = list(system or [])
    if len(run_paths) + len(systems) < 2:
        raise UsageError("compare needs at least two runs, result files or --system options")
    by_fields = list(by or [])
    results = _evaluate_sources(
        judgments,
        run_paths,
        systems,
        metrics=metric,
        by=by_fields,
        missing=missing,
        ties=ties,
        judgments_format=judgments_format,
        queries=queries,
        split=split,
        config=config,
        corpus=corpus,
        k=k,
        allow_version_mismatch=allow_version_mismatch,
    )
    result = run_compare(
        results,
        baseline=baseline if baseline is not None else 0,
        metrics=metric,
        by=by_fields,
        test=test,
        alpha=alpha,
        seed=seed,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        ci_method=ci_method,
        allow_version_mismatch=allow_version_mismatch,
        top=top,
    )
    if record:
        from assay.cli.common import record_result

        record_result(result, store)
    _emit(result, fmt, output)
