"""``assay compare``: is a candidate system better or worse than a baseline, with statistics?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import finish, options_from, resolve_format
from assay.report.kinds import formats_of

TESTS = ("randomization", "t", "wilcoxon", "bootstrap")


Runs = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Run files (TREC or JSONL) or result files from `assay evaluate -o x.json`. "
        "The first is the baseline unless --baseline says otherwise."
    ),
]
System = Annotated[
    list[str] | None,
    typer.Option("--system", "-s", help="Also compare a live system (repeatable; see --config)."),
]
Baseline = Annotated[
    list[str] | None,
    typer.Option(
        "--baseline",
        help="Baseline system name (default: the first); repeatable: each baseline is "
        "compared with every other system, each pair once, all in one family.",
    ),
]
AllPairs = Annotated[
    bool, typer.Option("--all-pairs", help="Compare every pair of systems (one family).")
]
Metric = Annotated[
    list[str] | None,
    typer.Option("--metric", "-m", help="Metric (repeatable). Default: R@5 R@10 RR nDCG@10."),
]
Test = Annotated[
    str, typer.Option("--test", help="Paired test: randomization, t, wilcoxon or bootstrap.")
]
Alpha = Annotated[
    float, typer.Option("--alpha", help="Significance level of the adjusted p-values.")
]
OverlapK = Annotated[int, typer.Option("--overlap-k", help="Depth of the runs' Jaccard@k overlap.")]
RboP = Annotated[
    float, typer.Option("--rbo-p", help="Persistence p of the runs' rank-biased overlap.")
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of permutations and resamples.")]
NPermutations = Annotated[
    int, typer.Option("--permutations", help="Random sign flips of the randomization test.")
]
NResamples = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples for the CIs.")]
CiMethod = Annotated[str, typer.Option("--ci", help="Bootstrap CI method: percentile | bca.")]
Top = Annotated[int, typer.Option("--top", help="Largest losses and gains listed.")]


@app.command()
def compare(
    judgments: o.Judgments,
    runs: Runs = None,
    system: System = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    baseline: Baseline = None,
    all_pairs: AllPairs = False,
    metric: Metric = None,
    by: o.By = None,
    test: Test = "randomization",
    alpha: Alpha = 0.05,
    correction: o.Correction = None,
    overlap_k: OverlapK = 10,
    rbo_p: RboP = 0.9,
    seed: Seed = 0,
    n_permutations: NPermutations = 10000,
    n_resamples: NResamples = 10000,
    ci_method: CiMethod = "percentile",
    top: Top = 5,
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
    from assay.procedures.comparison import compare as run_compare
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.procedure_options import ComparisonOptions

    fmt = resolve_format(fmt, output, formats_of("comparison"))
    progress = True  # a live system's run shows its progress
    params = locals()
    result = run_compare(
        judgments,
        list(runs or []),
        metric,
        options_from(ScoringOptions, params),
        comparison=options_from(ComparisonOptions, params),
        source=options_from(SourceOptions, params, text_fields="text_field", system=None),
        systems=system or [],
    )
    finish(result, fmt, output, max_failed=max_failed, record=record, store=store)
