"""When does ``--executor ray`` pay? Local vs one Ray node vs two, on this machine.

Three workloads, each run locally, on a one-node Ray cluster and on a two-node
one (both started here with Ray's test harness, nodes on 127.0.0.1):

1. ``--queries`` queries (default 2,000) to an HTTP system on loopback that
   answers every request after ``--delay`` seconds (default 0.1), through the
   runner (:func:`assay.systems.runner.run_system`, the system's concurrency 4);
2. ``--calls`` model calls (default 10,000) to a stub chat-completions server
   under a ``rate_limit`` of ``--rate`` requests per minute (default 30,000),
   through the graders' engine (:func:`assay.judges.grading.grade_items`);
3. a run of ``--lines`` lines (default 10 million) in 8 TREC shards, scored
   with ``evaluate`` (nDCG@10, AP) on synthetic judgments.

It also times Ray's start-up: the cluster (``Cluster`` + nodes + ``ray.init``).
Every node has ``--node-cpus`` logical CPUs (default 2); on one machine a
second node adds task slots, not cores, so the gain shown for network-bound
work (1, 2) is what more slots give, and for CPU-bound work (3) there is none
to expect beyond the machine's cores.

Run: ``.venv/bin/python benchmarks/ray_scale.py --queries 400 --calls 1000 --lines 2000000``
(the small configuration of docs/ray.md). Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


# ----------------------------------------------------------------------------- servers
@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` on 127.0.0.1:<free port> in a daemon thread; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def slow_search(delay: float) -> type[BaseHTTPRequestHandler]:
    """GET /search?q=...: three hits, after ``delay`` seconds."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            q = parse_qs(urlsplit(self.path).query).get("q", ["x"])[0]
            time.sleep(delay)
            n = sum(map(ord, q))
            hits = [{"id": f"d{(n + i) % 97}", "score": 3.0 - i} for i in range(3)]
            body = json.dumps({"hits": hits}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class ModelStub(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: a fixed relevance grade, at once."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        answer = {"grade": 2, "rationale": "stub"}
        body = json.dumps(
            {
                "choices": [{"message": {"content": json.dumps(answer)}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 8},
                "model": "stub",
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


# ----------------------------------------------------------------------------- clusters
@contextmanager
def cluster(nodes: int, cpus: int) -> Iterator[float]:
    """A Ray cluster of ``nodes`` nodes of ``cpus`` logical CPUs; yields its start-up time."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # every node on 127.0.0.1
    import ray
    from ray.cluster_utils import Cluster

    t0 = time.perf_counter()
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": cpus})
    for _ in range(nodes - 1):
        c.add_node(num_cpus=cpus)
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    started = time.perf_counter() - t0
    try:
        yield started
    finally:
        ray.shutdown()
        c.shutdown()


def timed(work: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    work()
    return time.perf_counter() - t0


# ----------------------------------------------------------------------------- workloads
def judgments(n: int) -> Any:
    from assay.judgments.models import JudgmentSet

    queries = [{"query_id": f"q{i}", "text": f"query number {i}"} for i in range(n)]
    qrels = {f"q{i}": {f"d{i % 97}": 1} for i in range(n)}
    return JudgmentSet.from_records(queries, qrels, name="bench")


def system_calls(url: str, n: int) -> Callable[[], Any]:
    from assay.systems.http import HttpSystem
    from assay.systems.runner import run_system

    js = judgments(n)

    def work() -> None:
        system = HttpSystem("slow", url=url + "/search?q={query}", concurrency=4)
        outcome = run_system(system, js, k=3, progress=False)
        assert not outcome.failures, outcome.failures[:3]

    return work


def model_calls(url: str, n: int, rate: float) -> Callable[[], Any]:
    from assay.judges.graders import RELEVANCE
    from assay.judges.grading import Item, grade_items
    from assay.providers.client import ChatClient
    from assay.providers.model_config import ModelConfig

    items = [Item(f"i{i}", {"query": f"query {i}", "passage": f"passage {i}"}) for i in range(n)]

    def work() -> None:
        config = ModelConfig(
            name="stub", base_url=url + "/v1", model="stub", concurrency=8, rate_limit=rate
        )
        with ChatClient(config) as client:  # no cache: every call goes to the server
            run = grade_items(items, RELEVANCE, client)
        assert len(run.scored) == n

    return work


def sharded_run(folder: Path, lines: int, shards: int = 8) -> tuple[Path, Path, Path]:
    """A run of ``lines`` lines (1,000 per query) in one file and in ``shards`` shards."""
    import numpy as np

    per_query = 1000
    n_queries = max(1, lines // per_query)
    rng = np.random.default_rng(0)
    whole = folder / "run.trec"
    parts = folder / "shards"
    parts.mkdir()
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as fh:
        for q in range(n_queries):
            for d in rng.choice(per_query * 2, 20, replace=False):
                fh.write(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n")
    block = -(-n_queries // shards)
    with open(whole, "w") as out:
        for s in range(shards):
            with open(parts / f"part-{s:02d}.trec", "w") as part:
                for q in range(s * block, min(n_queries, (s + 1) * block)):
                    docs = rng.permutation(per_query * 2)[:per_query]
                    scores = np.sort(rng.random(per_query))[::-1]
                    text = "".join(
                        f"q{q} Q0 d{d} {r + 1} {sc:.6f} bench\n"
                        for r, (d, sc) in enumerate(zip(docs, scores, strict=True))
                    )
                    out.write(text)
                    part.write(text)
    return qrels, whole, parts


def evaluate(qrels: Path, run: Path) -> Callable[[], Any]:
    from assay.judgments import load_judgments
    from assay.procedures.evaluation import evaluate as score

    def work() -> None:
        score(load_judgments(qrels), str(run), ["nDCG@10", "AP"])

    return work


# ----------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=30_000)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--node-cpus", type=int, default=2)
    args = parser.parse_args()

    from assay.executors import ExecutorOptions, use

    out: dict[str, Any] = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}
    out["commit"] = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    out["args"] = vars(args)
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve(slow_search(args.delay)) as search,
        serve(ModelStub) as model,
    ):
        qrels, whole, parts = sharded_run(Path(tmp), args.lines)
        work = {
            "system_calls": system_calls(search, args.queries),
            "model_calls": model_calls(model, args.calls, args.rate),
            "sharded_run": evaluate(qrels, parts),
        }
        timed(evaluate(qrels, whole))  # imports and first-use costs, not charged to a mode
        out["local"] = {name: timed(w) for name, w in work.items()}
        out["local"]["one_file_run"] = timed(evaluate(qrels, whole))
        for nodes in (1, 2):
            with cluster(nodes, args.node_cpus) as started, use(ExecutorOptions(executor="ray")):
                row = {"start_up": started}
                for name, w in work.items():  # first: workers start; again: they are warm
                    row[name] = timed(w)
                    row[name + "_again"] = timed(w)
            out[f"ray_{nodes}_node"] = row
    out["load_average"] = os.getloadavg()
    _print(out)


def _print(out: dict[str, Any]) -> None:
    names = ["start_up", "system_calls", "model_calls", "sharded_run"]
    print(f"machine: {out['machine']}; commit {out['commit']}; {out['args']}")
    print("load average at the end: " + ", ".join(f"{x:.1f}" for x in out["load_average"]))
    print(f"{'seconds':14}" + "".join(f"{n:>22}" for n in names))
    for key in ("local", "ray_1_node", "ray_2_node"):
        row = out[key]
        cells = []
        for n in names:
            if n not in row:
                cells.append(f"{'-':>22}")
            elif n + "_again" in row:
                cells.append(f"{row[n]:>13.1f} / {row[n + '_again']:>5.1f}")
            else:
                cells.append(f"{row[n]:>22.1f}")
        print(f"{key:14}{''.join(cells)}")
    print("(ray: first run / again with warm workers)")
    print(f"local, the run as one file: {out['local']['one_file_run']:.1f}s")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
