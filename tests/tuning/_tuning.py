"""Small python systems and judgment sets for the tune tests (written to a test's folder)."""

from __future__ import annotations

import json
import random
from pathlib import Path

#: A ranking that depends only on a seed: any "best" seed is luck.
LUCK = """
import hashlib
DOCS = [f"d{i}" for i in range(30)]

def search(query, k, seed=0):
    def key(doc):
        return hashlib.sha256(f"{seed}|{query}|{doc}".encode()).hexdigest()
    return sorted(DOCS, key=key)[:k]
"""

#: The relevant document of "question N" is dN; it is ranked 1 + 3 * |alpha - 0.6| * 10 places
#: down, with a small seeded jitter per query: alpha = 0.6 is the real optimum.
OPTIMUM = """
import hashlib
import os
DOCS = [f"d{i}" for i in range(30)]

def search(query, k, alpha=0.0):
    calls = os.environ.get("TUNE_CALLS")
    if calls:
        with open(calls, "a") as fh:
            fh.write(query + "\\n")
    n = int(query.split()[-1])
    jitter = int(hashlib.sha256(query.encode()).hexdigest(), 16) % 2
    place = min(len(DOCS) - 1, round(abs(alpha - 0.6) * 30) + jitter)
    others = [d for d in DOCS if d != f"d{n % 30}"]
    ranking = others[:place] + [f"d{n % 30}"] + others[place:]
    return [(doc, float(len(ranking) - i)) for i, doc in enumerate(ranking[:k])]
"""


def write_system(folder: Path, name: str, code: str) -> str:
    """The module written to ``folder``; its ``file.py:search`` spec."""
    path = folder / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    return f"{path}:search"


def judgments(folder: Path, n: int = 60, seed: int = 1) -> Path:
    """``n`` queries "question i", three relevant docs each (the first d{i % 30}), a language."""
    rnd = random.Random(seed)
    path = folder / f"judgments-{seed}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            others = [j for j in rnd.sample(range(30), 3) if j != i % 30][:2]
            relevant = {f"d{i % 30}": 1, **{f"d{j}": 1 for j in others}}
            record = {
                "query_id": f"q{i}",
                "query": f"question {i}",
                "relevant": relevant,
                "lang": "fr" if i % 3 == 0 else "en",
            }
            fh.write(json.dumps(record) + "\n")
    return path
