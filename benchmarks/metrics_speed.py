"""Speed benchmark: assay vs pytrec_eval vs ranx, end to end from the same TREC files.

Writes seeded synthetic qrels and a run into benchmarks/_data/ (gitignored), then
times each job in its own subprocess (wall seconds, peak RSS of the child):

* assay CLI three ways: ``assay evaluate QRELS RUN --judgments-format trec -m ...``
  printing the report to the terminal (a pipe), with ``-o result.json`` and with
  ``-o perquery.parquet`` (``--no-record``: no history-store write);
* assay API: ``load_judgments`` + ``load_run`` + ``compute`` (no CLI layer)
* pytrec_eval: dict building from the files + RelevanceEvaluator + means
* trec_eval itself (built from ../shared/tools/trec_eval into benchmarks/_work),
  once, with ``ndcg_cut.10 map_cut.100 recip_rank recall.100``;
* ranx: Qrels.from_file / Run.from_file (kind trec) + evaluate; its numba JIT is
  warmed on a tiny set in the same process first and only parse + evaluate after
  the warm-up are timed (from inside the process). If ranx needs more than
  ``--ranx-timeout`` seconds at full size, it is measured at 1/10 (then 1/100)
  of the queries and the output says so.

Measures: nDCG@10 AP@100 RR@10 R@100. pytrec_eval has no cut for recip_rank, so
its RR@10 is recip_rank on the run truncated to its top 10 after trec_eval's
tie order (score desc, doc id desc); ranx's ``mrr@10`` is the same definition.

Every job runs on three runs holding the same lines: sorted by score within
each query, shuffled within each query, and shuffled over the whole file
(``--orders sorted,unsorted,shuffled``); the ratios are printed per order, with
pyarrow reading (and sorting) the run as the reference, and the qrels load is
timed against pyarrow's read of the same file.

The header names the machine (CPU, cores, load average) and the commit; the end
prints a Markdown table of the figures (seconds, peak MB) per order.

Usage: ``.venv/bin/python benchmarks/metrics_speed.py [--queries N] [--docs K] [--skip-ranx]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "_data"
PY = sys.executable
MEASURES = ["nDCG@10", "AP@100", "RR@10", "R@100"]


def _run_lines(q: Any, docs: Any, ranks: Any, scores: Any) -> Any:
    """TREC run lines (an object array of str) of equal-length columns."""
    import numpy as np

    return (
        np.char.add("q", q.astype(str)).astype(object)
        + " Q0 D"
        + docs.astype(str).astype(object)
        + " "
        + ranks.astype(str).astype(object)
        + " "
        + scores.astype(str).astype(object)
        + " bench\n"
    )


def make_data(nq: int, ndocs: int, seed: int = 7, order: str = "sorted") -> tuple[Path, Path]:
    """Write seeded qrels (5 graded judgments per query) and a run (``ndocs`` per query).

    ``order='sorted'``: each query's lines by score descending (what most tools
    write); ``'unsorted'``: the same lines, each query's lines shuffled (systems
    that write in doc order); ``'shuffled'``: the same lines in random order
    over the whole file, queries interleaved (merged shards at worst); the rank
    field stays attached.
    """
    import numpy as np

    DATA.mkdir(parents=True, exist_ok=True)
    suffix = "" if order == "sorted" else f"_{order}"
    qrels_p, run_p = DATA / f"qrels_{nq}_{ndocs}.txt", DATA / f"run_{nq}_{ndocs}{suffix}.trec"
    if qrels_p.exists() and run_p.exists():
        return qrels_p, run_p
    rng = np.random.default_rng(seed)
    corpus = 1_000_000
    q = np.repeat(np.arange(nq), ndocs)
    docs = rng.integers(0, corpus, size=(nq, ndocs * 2))
    # unique docs per query: take the first ndocs distinct values of each row
    docs.sort(axis=1)
    dup = np.zeros_like(docs, dtype=bool)
    dup[:, 1:] = docs[:, 1:] == docs[:, :-1]
    docs[dup] = -1
    docs = -np.sort(-docs, axis=1)[:, :ndocs]  # drop the -1 markers
    rng.permuted(docs, axis=1, out=docs)
    scores = np.round(np.sort(rng.random((nq, ndocs)) * 20, axis=1)[:, ::-1], 4)
    ranks = np.tile(np.arange(1, ndocs + 1), nq).reshape(nq, ndocs)
    run_docs, run_scores = docs, scores
    if order == "unsorted":  # shuffle each query's lines, fields kept together
        perm = np.argsort(np.random.default_rng(seed + 1).random((nq, ndocs)), axis=1)
        run_docs = np.take_along_axis(docs, perm, axis=1)
        run_scores = np.take_along_axis(scores, perm, axis=1)
        ranks = np.take_along_axis(ranks, perm, axis=1)
    ranks = ranks.reshape(-1)
    with open(run_p, "w") as fh:
        # sorted and unsorted runs are written 50,000 queries at a time (the same bytes
        # as at once): the strings of 100 million lines would not fit in memory
        step = nq if order == "shuffled" else 50_000
        for lo in range(0, nq, step):
            rows = slice(lo * ndocs, min(nq, lo + step) * ndocs)
            lines = _run_lines(
                q[rows], run_docs.reshape(-1)[rows], ranks[rows], run_scores.reshape(-1)[rows]
            )
            if order == "shuffled":  # every line anywhere: queries interleaved
                lines = lines[np.random.default_rng(seed + 2).permutation(len(lines))]
            fh.writelines(lines.tolist())
    # 5 judged docs per query: 3 from the run (random positions), 2 unretrieved
    pos = rng.integers(0, ndocs, size=(nq, 3))
    judged_in = np.take_along_axis(docs, pos, axis=1)
    judged_out = rng.integers(corpus, corpus * 2, size=(nq, 2))
    judged = np.concatenate([judged_in, judged_out], axis=1)
    grades = rng.integers(0, 4, size=(nq, 5))
    grades[:, 4] = rng.integers(1, 4, size=nq)  # every query answerable
    with open(qrels_p, "w") as fh:
        for qi in range(nq):
            seen = set()
            for d, g in zip(judged[qi].tolist(), grades[qi].tolist(), strict=True):
                if d not in seen:
                    seen.add(d)
                    fh.write(f"q{qi} 0 D{d} {g}\n")
    return qrels_p, run_p


ASSAY_API = """
import json, sys
from assay.judgments.load import load_judgments
from assay.runs.io import load_run
from assay.metrics.engine import compute
from assay.metrics.measures import parse_measure
j = load_judgments(sys.argv[1], format="trec")
r = load_run(sys.argv[2], format="trec")
ms = [parse_measure(m) for m in sys.argv[4].split()]
agg = compute(j, r, ms).aggregate()
json.dump({m.name: v for m, v in agg.items()}, open(sys.argv[3], "w"))
"""

# The reference the issue sets: pyarrow reading the run file into a table (the
# fastest a TREC run can be read here), and sorting it into trec_eval's order.
PYARROW = """
import sys
import pyarrow.compute as pc
import pyarrow.csv as pacsv
names = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
table = pacsv.read_csv(sys.argv[1], read_options=pacsv.ReadOptions(column_names=names),
                       parse_options=pacsv.ParseOptions(delimiter=" "))
if sys.argv[2] == "sort":
    keys = [("query_id", "ascending"), ("score", "descending"), ("doc_id", "descending")]
    table = table.take(pc.sort_indices(table, sort_keys=keys))
print(table.num_rows)
"""

# Loading the qrels alone, timed inside the process (imports excluded, best of
# five): assay's checked loader against pyarrow's bare read of the same file and
# ranx's Qrels.from_file (when ranx is installed).
QRELS_LOAD = """
import json, sys, time
import pyarrow.csv as pacsv
from assay.judgments.load import load_judgments
try:
    from ranx import Qrels
except ImportError:
    Qrels = None

def best(job, path):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        job(path)
        times.append(time.perf_counter() - t)
    return min(times)

def bare(path):
    pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=list("qidg")),
                   parse_options=pacsv.ParseOptions(delimiter=" "))

out = {}
for path in sys.argv[1:]:
    out[path] = {"assay": best(lambda p: load_judgments(p, format="trec"), path),
                 "pyarrow": best(bare, path)}
    if Qrels is not None:
        out[path]["ranx"] = best(lambda p: Qrels.from_file(p, kind="trec"), path)
print(json.dumps(out))
"""

#: Real qrels (../shared/data) timed beside the synthetic file, when present.
REAL_QRELS = [
    "anserini_topics_qrels/beir/qrels.beir-v1.0.0-trec-covid.test.txt",
    "anserini_topics_qrels/beir/qrels.beir-v1.0.0-scidocs.test.txt",
    "anserini_topics_qrels/dl19_dl20/qrels.dl19-doc.txt",
]


def bench_qrels(synthetic: Path) -> None:
    """Time loading the synthetic qrels and the real ones found, against the peers."""
    shared = ROOT.parent / "shared" / "data"
    paths = [synthetic] + [shared / r for r in REAL_QRELS if (shared / r).is_file()]
    got = json.loads(
        subprocess.run(
            [PY, "-c", QRELS_LOAD, *map(str, paths)], capture_output=True, text=True, check=True
        ).stdout
    )
    print("\nqrels load (in process, best of 5)")
    for path in paths:
        times = got[str(path)]
        lines = path.read_bytes().count(b"\n")
        peers = ", ".join(
            f"{k} {v:.3f} s (assay / {k} = {times['assay'] / v:.2f})"
            for k, v in times.items()
            if k != "assay"
        )
        print(f"  {path.name} ({lines:,} lines): assay {times['assay']:.3f} s; {peers}")


PYTREC = """
import json, sys
import pytrec_eval
qrels = {}
with open(sys.argv[1]) as fh:
    for line in fh:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
run = {}
with open(sys.argv[2]) as fh:
    for line in fh:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map_cut.100", "recall.100"})
res = ev.evaluate(run)
# RR@10: recip_rank on each run truncated to its top 10 in trec_eval's order
top = {q: dict(sorted(sorted(d.items(), reverse=True), key=lambda x: -x[1])[:10])
       for q, d in run.items()}
rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top)
n = len(qrels)
out = {
    "nDCG@10": sum(v["ndcg_cut_10"] for v in res.values()) / n,
    "AP@100": sum(v["map_cut_100"] for v in res.values()) / n,
    "RR@10": sum(v["recip_rank"] for v in rr.values()) / n,
    "R@100": sum(v["recall_100"] for v in res.values()) / n,
}
json.dump(out, open(sys.argv[3], "w"))
"""

RANX = """
import json, sys, time
from ranx import Qrels, Run, evaluate
# warm the numba JIT on a tiny set first (same metrics, same code paths)
wq = Qrels.from_dict({"a": {"x": 1, "z": 2}, "b": {"y": 1}})
wr = Run.from_dict({"a": {"x": 1.0, "y": 0.5}, "b": {"y": 2.0, "x": 1.0}})
evaluate(wq, wr, ["ndcg@10", "map@100", "mrr@10", "recall@100"], make_comparable=True)
start = time.perf_counter()
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
res = evaluate(qrels, run, ["ndcg@10", "map@100", "mrr@10", "recall@100"], make_comparable=True)
seconds = time.perf_counter() - start
out = {"nDCG@10": res["ndcg@10"], "AP@100": res["map@100"], "RR@10": res["mrr@10"],
       "R@100": res["recall@100"], "seconds": seconds}
json.dump(out, open(sys.argv[3], "w"))
"""


def timed(cmd: list[str], timeout: float | None = None) -> tuple[float, float, int] | None:
    """Run ``cmd``; wall seconds, peak RSS (MB) of that child, return code.

    ``None`` when it ran longer than ``timeout`` seconds (the child is killed).
    """
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "limit = float(sys.argv[1]) if sys.argv[1] != 'none' else None\n"
        "try:\n"
        "    rc = subprocess.call(sys.argv[2:], timeout=limit)\n"
        "except subprocess.TimeoutExpired:\n"
        "    print('timeout'); sys.exit(0)\n"
        "dt = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(dt, rss / 1024, rc)\n"
    )
    limit = "none" if timeout is None else str(timeout)
    out = subprocess.run(
        [PY, "-c", wrapper, limit, *cmd], capture_output=True, text=True, check=True
    )
    if out.stdout.strip() == "timeout":
        return None
    dt, mb, rc = out.stdout.split()[-3:]
    return float(dt), float(mb), int(rc)


def run_ranx(
    args: argparse.Namespace, work: Path, results: dict, values: dict, order: str = "sorted"
) -> None:
    """Time ranx at full size, else at the largest smaller size within the time limit.

    The seconds shown are ranx's parse + evaluate, measured inside its process
    after the numba JIT was warmed on a tiny set; peak MB is the whole process.
    """
    sizes = [args.queries] + [n for n in (args.queries // 10, args.queries // 100) if n >= 100]
    for nq in sizes:
        qrels_p, run_p = make_data(nq, args.docs, order=order)
        out = work / f"ranx_{nq}.json"
        cmd = [PY, "-c", RANX, str(qrels_p), str(run_p), str(out)]
        got = timed(cmd, timeout=args.ranx_timeout)
        if got is None:
            print(f"  ranx at {nq} queries took over {args.ranx_timeout:.0f} s; trying fewer")
            continue
        wall, mb, rc = got
        label = "ranx" if nq == args.queries else f"ranx@{nq // 1000}k"
        inner = json.loads(out.read_text()) if rc == 0 and out.exists() else {}
        dt = float(inner.pop("seconds", wall))
        results[label] = (dt, mb, rc)
        print(f"  {label:12s} {dt:8.2f} s {mb:8.0f} MB rc={rc} (process wall {wall:.2f} s)")
        if nq == args.queries and inner:
            values["ranx"] = inner
        elif inner:
            print(
                f"  NOTE: ranx measured at {nq} queries x {args.docs} docs, not "
                f"{args.queries}; its ratio compares different sizes"
            )
        return
    print(f"  ranx: no size finished within {args.ranx_timeout:.0f} s")


def trec_eval_binary() -> str | None:
    """trec_eval built from ../shared/tools into benchmarks/_work/trec_eval (git-ignored;
    None when it cannot be built)."""
    build = ROOT.parent / "shared" / "tools" / "trec_eval" / "build.sh"
    binary = ROOT / "benchmarks" / "_work" / "trec_eval" / "trec_eval"
    if not binary.is_file() and build.is_file():
        subprocess.run(["bash", str(build), str(binary.parent)], capture_output=True, check=False)
    return str(binary) if binary.is_file() else None


def bench_order(args: argparse.Namespace, order: str, work: Path) -> dict:
    """Time every job on the run written in ``order``; returns {job: (s, MB, rc)}."""
    qrels_p, run_p = make_data(args.queries, args.docs, order=order)
    print(
        f"\n== {order} run: {run_p.name} ({run_p.stat().st_size / 1e6:.0f} MB), "
        f"{qrels_p.name} ({qrels_p.stat().st_size / 1e6:.1f} MB)"
    )
    assay_bin = str(Path(PY).with_name("assay"))
    mflags = [x for m in MEASURES for x in ("-m", m)]
    cli = [assay_bin, "evaluate", str(qrels_p), str(run_p), "--judgments-format", "trec", *mflags]
    api = [PY, "-c", ASSAY_API, str(qrels_p), str(run_p), str(work / f"api_{order}.json")]
    jobs = {
        # files to aggregate, as the peers do: no history-store write
        "assay (CLI)": [*cli, "-o", str(work / f"cli_{order}.json"), "--no-record"],
        "assay (CLI, terminal)": [*cli, "--no-record"],
        "assay (CLI, parquet)": [*cli, "-o", str(work / f"cli_{order}.parquet"), "--no-record"],
        "assay (API)": [*api, " ".join(MEASURES)],
        "pytrec_eval": [PY, "-c", PYTREC, str(qrels_p), str(run_p), str(work / "pytrec.json")],
        "pyarrow read": [PY, "-c", PYARROW, str(run_p), "read"],
        "pyarrow sort": [PY, "-c", PYARROW, str(run_p), "sort"],
    }
    # Read both files once so that every job finds them in the page cache.
    for path in (qrels_p, run_p):
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass
    results: dict[str, tuple[float, float, int]] = {}
    reps = {
        name: args.peer_repeat
        if name in ("pytrec_eval", "pyarrow sort")
        else args.repeat
        if name in ("assay (CLI)", "pyarrow read")
        else args.repeat_other
        for name in jobs
    }
    # repeats interleaved, round by round (every job once, then again...): on a shared
    # machine the load wanders, and a ratio of medians taken in the same rounds stays fair
    times: dict[str, list[tuple[float, float, int]]] = {name: [] for name in jobs}
    for round_ in range(max(reps.values())):
        for name, cmd in jobs.items():
            if round_ < reps[name] and (got := timed(cmd)) is not None:
                times[name].append(got)
    for name, got in times.items():
        dt = statistics.median(r[0] for r in got)
        results[name] = (dt, max(r[1] for r in got), max(r[2] for r in got))
        spread = ", ".join(f"{r[0]:.2f}" for r in got)
        note = " (one run)" if len(got) == 1 else ""
        print(f"  {name:22s} {dt:8.2f} s {results[name][1]:8.0f} MB  (runs: {spread}){note}")
    print(f"  (load average after these jobs: {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    binary = None if args.skip_trec_eval else trec_eval_binary()
    if binary is not None:
        te = ["-m", "ndcg_cut.10", "-m", "map_cut.100", "-m", "recip_rank", "-m", "recall.100"]
        got = timed([binary, *te, str(qrels_p), str(run_p)], timeout=args.trec_eval_timeout)
        if got is None:
            print(f"  trec_eval      over {args.trec_eval_timeout:.0f} s: stopped")
        else:
            results["trec_eval"] = got
            print(f"  trec_eval      {got[0]:8.2f} s {got[1]:8.0f} MB  (one run)", flush=True)
    values: dict = {}
    if not args.skip_ranx:
        run_ranx(args, work, results, values, order)
    return results


def compiled() -> None:
    """Byte-compile assay's sources first, as an installed package is (the peers' are):
    each job then times its work, not the compiling of assay's modules, which
    ``PYTHONDONTWRITEBYTECODE`` (or a read-only checkout) would repeat in every process."""
    import compileall

    compileall.compile_dir(str(ROOT / "src" / "assay"), quiet=1)


def main() -> None:
    """Generate the data, time the jobs on sorted and unsorted runs, print ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--orders", default="sorted,unsorted,shuffled", help="run line orders to time")
    ap.add_argument("--skip-ranx", action="store_true")
    ap.add_argument("--skip-trec-eval", action="store_true")
    ap.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="runs of the CLI's -o json job and of pyarrow's read; the median is reported",
    )
    ap.add_argument(
        "--ranx-timeout", type=float, default=300.0, help="seconds before a smaller ranx size"
    )
    ap.add_argument("--trec-eval-timeout", type=float, default=400.0)
    ap.add_argument(
        "--peer-repeat", type=int, default=1, help="runs of pytrec_eval and pyarrow sort"
    )
    ap.add_argument(
        "--repeat-other",
        type=int,
        default=3,
        help="runs of the CLI's terminal and parquet jobs and of the API (default 3)",
    )
    args = ap.parse_args()
    print(machine())
    compiled()
    work = Path(tempfile.mkdtemp(prefix="assay_bench_"))
    tables = {order: bench_order(args, order, work) for order in args.orders.split(",")}
    bench_qrels(make_data(args.queries, args.docs)[0])
    for order, results in tables.items():
        base = results["assay (CLI)"]
        print(f"\n{order} run    {'seconds':>17s} {'peak MB':>9s} {'x assay CLI':>12s}")
        for name, (dt, mb, rc) in results.items():
            flag = "" if rc == 0 else f"  (failed rc={rc})"
            print(f"{name:22s} {dt:9.2f} {mb:9.0f} {dt / base[0]:12.2f}{flag}")
        for job in ("assay (CLI)", "assay (CLI, terminal)", "assay (CLI, parquet)"):
            for peer in ("pyarrow read", "pytrec_eval"):
                if job in results and peer in results:
                    ratio = results[job][0] / results[peer][0]
                    print(f"{job} takes {ratio:.2f}x the time of {peer}")
    print(markdown_table(tables))
    agree = {}
    for order in tables:
        api = work / f"api_{order}.json"
        cli = work / f"cli_{order}.json"
        if api.exists() and cli.exists():
            a, c = json.loads(api.read_text()), _cli_aggregate(json.loads(cli.read_text()))
            agree[order] = all(abs(a[k] - c[k]) <= 1e-9 for k in MEASURES)
    pytrec = work / "pytrec.json"
    if pytrec.exists():
        ref = json.loads(pytrec.read_text())
        for order in tables:
            api = work / f"api_{order}.json"
            if api.exists():
                a = json.loads(api.read_text())
                ok = all(abs(a[k] - ref[k]) <= 1e-6 for k in MEASURES)
                print(f"assay ({order}) agrees with pytrec_eval to 1e-6: {ok}; CLI = API: {agree}")
    print(f"({os.cpu_count()} CPUs; resource limit {resource.getrlimit(resource.RLIMIT_AS)[0]})")


def machine() -> str:
    """CPU model, cores, load average, Python and the commit measured (with "+dirty")."""
    import platform

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def git(*a: str) -> str:
        out = subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, check=False)
        return out.stdout.strip()

    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"machine: {cpu}, {os.cpu_count()} CPUs, load average {load}; Python "
        f"{platform.python_version()}; commit {git('rev-parse', '--short', 'HEAD')}{dirty}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def markdown_table(tables: dict) -> str:
    """The figures as a Markdown table: one row per job, seconds and peak MB per order."""
    orders = list(tables)
    names = list(dict.fromkeys(n for r in tables.values() for n in r))
    head = "| job | " + " | ".join(f"{o}: s | MB" for o in orders) + " |"
    rule = "|---|" + "---:|---:|" * len(orders)
    lines = ["", head, rule]
    for name in names:
        cells = []
        for o in orders:
            got = tables[o].get(name)
            cells += [f"{got[0]:.2f}", f"{got[1]:.0f}"] if got else ["-", "-"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cli_aggregate(doc: dict) -> dict:
    """Pull the aggregate values out of ``assay evaluate --format json`` output."""
    agg = doc.get("aggregate") or doc.get("metrics") or {}
    if isinstance(agg, list):
        agg = {a.get("metric") or a.get("name"): a.get("value") for a in agg}
    return {k: (v["mean"] if isinstance(v, dict) else v) for k, v in agg.items() if k in MEASURES}


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total benchmark time {time.perf_counter() - start:.1f} s")
