"""Growth curve: time and peak memory of ``assay evaluate -o result.json`` by run size.

For each size (queries x 100 documents: 10,000 -> 1M lines, 100,000 -> 10M,
300,000 -> 30M, 1,000,000 -> 100M) the seeded synthetic data of
``metrics_speed.make_data`` (``benchmarks/_data``, git-ignored) is scored, each
job in its own process, by:

* **assay, budget**: the default ``--memory`` (1024 MB): runs past the budget
  are scored in blocks of whole queries (:mod:`assay.runs.blocks`);
* **assay, in memory**: ``--memory 1048576``, the whole run read at once (the
  path every run took before the budget);
* **pyarrow read**: pyarrow reading the run into a table, the time peer.

Each figure is printed with its ratio to its peer measured in the same
invocation: the budget's peak against the in-memory peak, both times against
pyarrow's read, and every size's peak against the 10M-line run's. The budget's
result files are compared with the in-memory ones (aggregates and per-query
values must be identical). ``--orders sorted shuffled`` (shuffled: queries
interleaved over the file, partitioned by query hash).

Usage: ``.venv/bin/python benchmarks/memory_growth.py [--queries 10000 100000 300000]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from metrics_speed import MEASURES, PY, ROOT, compiled, machine, make_data, timed

WORK = ROOT / "benchmarks" / "_work"
READ = (
    "import sys, pyarrow.csv as c\n"
    "c.read_csv(sys.argv[1], read_options=c.ReadOptions(column_names=list('abcdef')),\n"
    "           parse_options=c.ParseOptions(delimiter=' '))\n"
)


def assay(qrels: Path, run: Path, memory: int, out: Path) -> list[str]:
    """The ``assay evaluate`` command line of one job."""
    metrics = [x for m in MEASURES for x in ("-m", m)]
    return [
        *(PY, "-m", "assay", "evaluate", str(qrels), str(run), "--judgments-format", "trec"),
        *metrics,
        *("-o", str(out), "--no-record", "--memory", str(memory)),
    ]


def same(a: Path, b: Path) -> bool:
    """Aggregates and per-query values of two result files identical."""
    x, y = json.loads(a.read_text()), json.loads(b.read_text())
    return x["aggregate"] == y["aggregate"] and x["per_query"] == y["per_query"]


Timing = tuple[float, float, int]  # seconds, peak MB, exit code (metrics_speed.timed)


def describe(
    order: str,
    lines: int,
    read: Timing,
    budget: Timing,
    whole: Timing | None,
    base_mb: float | None,
    out: dict[int, Path],
) -> str:
    """One size's figures, each with its ratio to its peer of the same invocation."""
    text = f"{order} {lines:,} lines: budget {budget[0]:.2f} s ({budget[0] / read[0]:.2f}x read), "
    text += f"{budget[1]:.0f} MB"
    ratios = [f"{budget[1] / whole[1]:.2f}x in memory"] if whole else []
    if base_mb:
        ratios.append(f"{budget[1] / base_mb:.2f}x the 10M-line run")
    text += f" ({', '.join(ratios)})" if ratios else ""
    if whole:
        text += f"; in memory {whole[0]:.2f} s ({whole[0] / read[0]:.2f}x read), {whole[1]:.0f} MB"
        text += f"; identical: {same(out[1024], out[1 << 20])}"
    return text + f"; pyarrow read {read[0]:.2f} s, {read[1]:.0f} MB"


def main() -> None:
    """Time each size and order; print each figure with its ratio to its peer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    parser.add_argument("--docs", type=int, default=100, help="documents per query")
    parser.add_argument("--orders", nargs="+", default=["sorted", "shuffled"])
    parser.add_argument(
        "--whole-max",
        type=int,
        default=30_000_000,
        help="largest run (lines) also scored whole in memory (100M lines need about 10 GB)",
    )
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    print(machine(), flush=True)
    compiled()
    rows = []
    for order in args.orders:
        base_mb = None
        for nq in args.queries:
            qrels, run = make_data(nq, args.docs, order=order)
            run.read_bytes()  # from the page cache for every job
            lines = nq * args.docs
            out = {m: WORK / f"growth_{lines}_{order}_{m}.json" for m in (1024, 1 << 20)}
            read = timed([PY, "-c", READ, str(run)])
            budget = timed(assay(qrels, run, 1024, out[1024]))
            whole = None
            if lines <= args.whole_max:
                whole = timed(assay(qrels, run, 1 << 20, out[1 << 20]))
                assert whole and whole[2] == 0
            assert read and budget and budget[2] == 0
            if lines == 10_000_000:
                base_mb = budget[1]
            rows.append((order, lines, run.stat().st_size, read, budget, whole))
            print(describe(order, lines, read, budget, whole, base_mb, out), flush=True)
    print("\n| order | lines | run MB | budget: s | MB | in memory: s | MB | read: s | MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for order, lines, size, read, budget, whole in rows:
        kept = f"{whole[0]:.2f} | {whole[1]:.0f}" if whole else "not run | not run"
        print(
            f"| {order} | {lines:,} | {size / 2**20:.0f} | {budget[0]:.2f} | {budget[1]:.0f} | "
            f"{kept} | {read[0]:.2f} | {read[1]:.0f} |"
        )


if __name__ == "__main__":
    main()
