"""Time `judge llm`'s engine: 10,000 pairs against the local stub model, then a cached rerun.

The stub (tests/llm_stub.py) runs in its own process with uvicorn on 127.0.0.1 and a
free port; the client grades synthetic (query, passage) pairs with concurrency 16
through the SQLite call cache, then grades them again with --offline semantics (every
answer from the cache, no call). Run from the repository root:

    .venv/bin/python benchmarks/judge_speed.py [--pairs 10000] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

SERVER = """
import sys, uvicorn
sys.path.insert(0, {tests!r})
from llm_stub import StubState, make_app
uvicorn.run(make_app(StubState()), host="127.0.0.1", port={port}, log_level="error")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit("the stub server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    from assay.corpora.models import Corpus
    from assay.judges.relevance import Pair, grade_relevance
    from assay.providers.call_cache import CallCache
    from assay.providers.client import ChatClient
    from assay.providers.model_config import model_from_table

    words = ["rate", "census", "price", "index", "labour", "force", "housing", "export", "wage"]
    docs = [
        {"id": f"d{i}", "text": " ".join(words[(i + k) % len(words)] for k in range(i % 5 + 3))}
        for i in range(1000)
    ]
    corpus = Corpus.from_records(docs, text_fields=["text"])
    pairs = [
        Pair(
            f"q{i // 10}",
            f"{words[i // 10 % 9]} {words[i // 90 % 9]} statistics {i // 10}",
            f"d{i % 1000}",
        )
        for i in range(args.pairs)
    ]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(tests=str(ROOT / "tests"), port=port)]
    )
    try:
        wait_for(port)
        table = {
            "base_url": f"http://127.0.0.1:{port}/v1",
            "model": "stub",
            "concurrency": args.concurrency,
            "input_price": 0.15,
            "output_price": 0.6,
        }
        config = model_from_table("bench", table)
        with tempfile.TemporaryDirectory() as tmp:
            cache = CallCache(tmp)
            for label, offline in (("first run (calls)", False), ("rerun (all cached)", True)):
                with ChatClient(config, cache=cache, offline=offline) as client:
                    start = time.perf_counter()
                    run = grade_relevance(pairs, corpus, client)
                    wall = time.perf_counter() - start
                u = run.usage
                print(
                    f"{label}: {len(pairs)} pairs in {wall:.2f} s "
                    f"({len(pairs) / wall:,.0f} pairs/s); scored {len(run.scored)}, "
                    f"cached {u.cached}, tokens in {u.input_tokens} out {u.output_tokens}, "
                    f"cost ${u.cost:.4f}, spent ${u.spent:.4f}"
                )
            cache.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
