"""``assay view`` at scale: the pages of a 100k-query evaluation, indexed and whole-run.

The seeded synthetic data of ``metrics_speed.make_data`` (100,000 queries x 100
documents: a 10M-line run, 5 graded judgments per query; ``benchmarks/_data``,
git-ignored) is evaluated once (``assay evaluate -o``, into ``benchmarks/_work``),
then served by the viewer's app (``make_app``, in process through FastAPI's test
client) in two child processes, each measuring itself:

* **indexed**: what ``assay view`` does now; a query's page reads that query's
  lines through the run's byte offsets (:mod:`assay.runs.offsets`), built on the
  first query page and cached (``$ASSAY_CACHE_DIR/view``, here in ``_work``);
* **whole run**: the path before, the whole run loaded into a dict
  (``evidence._run``) on the first query page.

The result page starts indexing its run on another thread (``evidence.warm``); the
first query page is asked ``--pause`` seconds later (2: a person reading the result
page; 0: at once). A query page asked before the index is ready searches the run
file for its query's lines (``offsets.scan_lines``) instead of waiting for it.

Printed per job: seconds of the result page, the first query page (the index
built, or the run loaded), the mean of 20 further query pages, their largest
payload (bytes of HTML), the run bytes a query page read (indexed) and the
peak RSS (the process's own VmHWM); then each figure as a ratio to the whole-run
path measured in the same invocation, and a check that both paths show the same
ranked lists.

Usage: ``.venv/bin/python benchmarks/view_scale.py [--queries 100000] [--depth 100]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from metrics_speed import PY, ROOT, machine, make_data

WORK = ROOT / "benchmarks" / "_work" / "view_scale"

CHILD = r"""
import json, sys, time
from fastapi.testclient import TestClient
from assay.view import evidence
from assay.runs import offsets
from assay.view import make_app

result, mode, nq = sys.argv[1], sys.argv[2], int(sys.argv[3])
read = []
if mode == "whole":  # the path before: no index, the whole run on the first query page
    evidence.query_ranking = lambda path, qid: evidence._run(path).get(qid, [])
    evidence.warm = lambda *args: None
else:
    real = offsets.query_bytes
    def counted(*args):
        data = real(*args)
        read.append(len(data or b""))
        return data
    offsets.query_bytes = counted
client = TestClient(make_app([result]))
def page(url):
    t = time.perf_counter()
    r = client.get(url)
    assert r.status_code == 200, r.text[:500]
    return time.perf_counter() - t, len(r.content), r.text
def peak_mb():  # this process's own high-water mark (ru_maxrss would include the parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
dt, size, _ = page("/r/f1")
out = {"result_s": dt, "result_bytes": size}
time.sleep(float(sys.argv[4]))  # a person reads the result page, then opens a query
out["first_s"] = page("/r/f1/q/q%d" % (nq // 2))[0]
times, sizes, lists = [], [], {}
for k in range(20):
    qid = "q%d" % ((k * 7919) % nq)
    dt, size, text = page("/r/f1/q/" + qid)
    times.append(dt); sizes.append(size)
    lists[qid] = text[text.find("<table"):]
out.update(query_s=sum(times) / len(times), max_query_bytes=max(sizes),
           read_bytes=max(read) if read else None,
           peak_mb=peak_mb(), lists=lists)
print(json.dumps(out))
"""


def child(result: Path, mode: str, nq: int, pause: float) -> dict:
    """One job in its own process (its own peak memory, cold caches of the app)."""
    env = {**os.environ, "ASSAY_CACHE_DIR": str(WORK / "cache")}
    out = subprocess.run(
        [PY, "-c", CHILD, str(result), mode, str(nq), str(pause)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    """Evaluate once, serve twice, print the figures and their ratios."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument(
        "--pause",
        type=float,
        default=2.0,
        help="seconds between the result page and the first query page",
    )
    args = ap.parse_args()
    qrels, run = make_data(args.queries, args.depth)
    WORK.mkdir(parents=True, exist_ok=True)
    result = WORK / f"eval_{args.queries}_{args.depth}.json"
    subprocess.run(
        [
            *(PY, "-m", "assay", "evaluate", str(qrels), str(run), "--judgments-format", "trec"),
            *("-m", "nDCG@10", "-o", str(result), "--no-record"),
        ],
        check=True,
        capture_output=True,
    )
    for cached in (WORK / "cache" / "view").glob("*"):
        cached.unlink()  # the first indexed query page builds the index
    print(f"{machine()}\nrun: {run.name}, {run.stat().st_size / 1e6:.0f} MB")
    whole = child(result, "whole", args.queries, args.pause)
    indexed = child(result, "indexed", args.queries, args.pause)
    again = child(result, "indexed", args.queries, args.pause)  # the index read from the cache
    same = whole.pop("lists") == indexed.pop("lists") == again.pop("lists")
    for name, row in (("whole run", whole), ("indexed", indexed), ("indexed, cached", again)):
        print(f"{name:16s} " + "  ".join(f"{k}={v:.3g}" for k, v in row.items() if v is not None))
    for key in ("first_s", "query_s", "peak_mb"):
        for name, row in (("indexed", indexed), ("indexed, cached", again)):
            print(f"{key} {name} / whole run: {row[key] / whole[key]:.3f}")
    print(f"same ranked lists on both paths: {same}")


if __name__ == "__main__":
    main()
