"""Load benchmark of ``assay serve``: requests/s and latency at 50 concurrent clients.

Builds the BM25 system (Lucene flat defaults) over the 5,183 SciFact documents
(``../shared/data/beir_scifact``), serves it on a loopback port with the same
app ``assay serve`` runs (:func:`assay.systems.server.create_app`), waits for
``/health`` to report ready, then sends the 300 SciFact test queries round-robin
from ``--clients`` threads (each its own keep-alive connection) until
``--requests`` have been answered. Prints requests/s, p50, p99 and max latency
(ms) and the status codes. Loopback only; every loop is bounded.

Usage: ``.venv/bin/python benchmarks/serve_load.py [--clients 50] [--requests 3000]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "beir_scifact"


def _queries() -> list[str]:
    ids = {
        line.split("\t")[0]
        for line in (SCIFACT / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    }
    texts = []
    for line in (SCIFACT / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["_id"] in ids:
            texts.append(record["text"])
    return texts


def _client(url: str, queries: list[str], budget: itertools.count, total: int,
            latencies: list[float], codes: Counter[int], lock: threading.Lock) -> None:  # fmt: skip
    import httpx

    with httpx.Client(base_url=url, timeout=30) as client:
        while (n := next(budget)) < total:
            t0 = time.perf_counter()
            code = client.get(
                "/search", params={"q": queries[n % len(queries)], "k": 10}
            ).status_code
            ms = (time.perf_counter() - t0) * 1000.0
            with lock:
                latencies.append(ms)
                codes[code] += 1


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print one summary line per figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args(argv)
    if not SCIFACT.is_dir():
        print(f"SciFact not found at {SCIFACT}", file=sys.stderr)
        return 2
    import httpx

    from assay.corpora import load_corpus
    from assay.systems.bm25 import BM25System
    from assay.systems.server import create_app, serve_in_thread

    corpus = load_corpus(SCIFACT / "corpus.jsonl")
    queries = _queries()
    system = BM25System(corpus)
    started = time.perf_counter()
    with serve_in_thread(create_app(system), limit_concurrency=200) as url:
        while httpx.get(url + "/health", timeout=5).status_code != 200:
            if time.perf_counter() - started > 300:
                raise SystemExit("the index was not ready within 300 s")
            time.sleep(0.05)
        ready = time.perf_counter() - started
        latencies: list[float] = []
        codes: Counter[int] = Counter()
        lock = threading.Lock()
        budget = itertools.count()
        threads = [
            threading.Thread(
                target=_client, args=(url, queries, budget, args.requests, latencies, codes, lock)
            )
            for _ in range(args.clients)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    ordered = sorted(latencies)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    print(f"documents {len(corpus)}, queries {len(queries)}, clients {args.clients}")
    print(f"ready after {ready:.2f} s (index built before /health said ready)")
    print(f"requests {len(latencies)} in {wall:.2f} s: {len(latencies) / wall:.1f} requests/s")
    print(
        f"latency ms: p50 {statistics.median(ordered):.1f}, p99 {p(0.99):.1f}, "
        f"max {ordered[-1]:.1f}"
    )
    print(f"status codes: {dict(sorted(codes.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
