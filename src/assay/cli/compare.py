"""``assay compare``: is a candidate system better or worse than a baseline, with statistics?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.report.kinds import formats_of

TESTS = ("randomization", "t", "wilcoxon", "bootstrap")


@app.command()
def compare(
    judgments: Annotated[
        Path,
        typer.Argument(
            help="Judgment set: JSONL, CSV, JSON, TREC qrels, a BEIR folder or irds:NAME."
        ),
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
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    baseline: Annotated[
        list[str] | None,
        typer.Option(
            "--baseline",
            help="Baseline system name (default: the first); repeatable: each baseline is "
            "compared with every other system, each pair once, all in one family.",
        ),
    ] = None,
    all_pairs: Annotated[
        bool, typer.Option("--all-pairs", help="Compare every pair of systems (one family).")
    ] = False,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Metric (repeatable). Default: R@5 R@10 RR nDCG@10."),
    ] = None,
    by: o.By = None,
    test: Annotated[
        str, typer.Option("--test", help="Paired test: randomization, t, wilcoxon or bootstrap.")
    ] = "randomization",
    alpha: Annotated[
        float, typer.Option("--alpha", help="Significance level of the adjusted p-values.")
    ] = 0.05,
    correction: o.Correction = None,
    overlap_k: Annotated[
        int, typer.Option("--overlap-k", help="Depth of the runs' Jaccard@k overlap.")
    ] = 10,
    rbo_p: Annotated[
        float, typer.Option("--rbo-p", help="Persistence p of the runs' rank-biased overlap.")
    ] = 0.9,
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
    fmt: o.kind_format("comparison") = None,  # type: ignore[valid-type]
    output: o.kind_output("comparison") = None,  # type: ignore[valid-type]
    allow_version_mismatch: o.AllowVersionMismatch = False,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    ignore_identical_ids: o.IgnoreIdenticalIds = False,
    store: o.Store = None,
    record: o.Record = True,
    retries: o.Retries = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    quiet: o.Quiet = False,
    executor: o.Executor = None,
    mix_synthetic: o.MixSynthetic = False,
) -> None:
    """Compare systems with a baseline: deltas, CIs, paired tests, corrections, slices, power."""
    from assay.cli.common import finish, options_from, resolve_format
    from assay.procedures.comparison import compare as run_compare
    from assay.procedures.options import ScoringOptions, SourceOptions

    fmt = resolve_format(fmt, output, formats_of("comparison"))
    params = locals()
    named = ("all_pairs", "test", "alpha", "seed", "n_permutations", "n_resamples", "ci_method")
    named += ("top", "correction", "overlap_k", "rbo_p", "mix_synthetic")
    result = run_compare(
        judgments,
        list(runs or []),
        metric,
        baseline=baseline or 0,
        by=by or [],
        progress=True,
        **{name: params[name] for name in named},
        options=options_from(ScoringOptions, locals()),
        systems=system or [],
        source=options_from(SourceOptions, locals(), text_fields="text_field", system=None),
    )
    finish(result, fmt, output, max_failed=max_failed, record=record, store=store)
