"""Synthetic queries: a model writes one query per sampled passage; the passage is its answer.

Every row is marked ``source = "model"`` and ``synthetic = true`` with the
model id and prompt hash, so it is never mistaken for a person's query.
Queries equal after normalisation (case, spacing, punctuation) are kept once.
``overlap`` is the share of a query's words (four letters or more) found in
its source passage. With human queries and their judgments, both sets are
ranked by BM25 over the corpus: a model that copies the passage's words makes
queries a lexical system finds easily, and the result says so.
"""

from __future__ import annotations

import random
import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from assay.core.errors import UsageError
from assay.core.failures import FAILED_CALLS
from assay.core.redact import redact_text
from assay.judges.graders import Grader, _schema
from assay.judges.grading import Item, grade_items
from assay.providers.accounting import Usage
from assay.results.models import ResultModel
from assay.systems.bm25 import BM25System

QUERY_RUBRIC = """\
You write test queries for a search engine. Read the passage and write one query that a
person who needs this passage would type. Ask about the passage's main finding in your own
words; do not copy its phrases, do not name the passage, and keep it under twenty words.
Reply with a JSON object: {"query": "the query"}."""

QUERY_WRITER = Grader(
    name="query-writer",
    rubric_version="query-writer/1",
    rubric=QUERY_RUBRIC,
    template="Document: {passage}",
    schema=_schema({"query": {"type": "string"}}),
    vote=("query",),
)
#: Characters of a passage sent to the model.
MAX_PASSAGE = 2000


class QueryStats(BaseModel):
    """Lexical overlap with the source passage and BM25's ranking of it, for one query set."""

    queries: int
    overlap_mean: float | None
    mrr: float | None = Field(None, description="BM25 reciprocal rank of the source passage")
    recall_at_10: float | None = None


class SyntheticQueries(ResultModel):
    """Generated queries (judgment rows) and how they compare with people's."""

    schema_version: str = "1"
    kind: Literal["synthetic-queries"] = "synthetic-queries"
    output: str | None = Field(None, description="the queries file written (JSONL)")
    model: dict[str, Any]
    prompt_hash: str
    rubric_version: str
    corpus: str | None
    seed: int
    requested: int
    rows: list[dict[str, Any]]
    duplicates_removed: int
    unscored: int
    synthetic: QueryStats | None = None
    human: QueryStats | None = None
    findings: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    failed_calls: list[str] = Field(
        default_factory=list, description="passage id: error, for every call that failed"
    )
    stopped_at_budget: bool = Field(False, description="the budget stopped the calls")
    circuit_open: str | None = Field(
        None, description="why calls stopped after too many failed in a row"
    )

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    @property
    def nothing_scored(self) -> bool:
        """Passages were asked and no query could be written."""
        return self.requested > 0 and not self.rows

    @property
    def stopped_short(self) -> bool:
        """The budget or the circuit breaker stopped the calls (passages left unasked)."""
        return self.stopped_at_budget or self.circuit_open is not None

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls (secrets masked), named for ``max_failed``; none when the
        calls :attr:`stopped_short` (that fails by :meth:`exit_code` alone)."""

        who = f"generate queries --model {self.model.get('name')}"
        failed = [] if self.stopped_short else self.failed_calls
        return [(who, [redact_text(f) for f in failed])]

    def exit_code(self) -> int:
        """1 when the calls :attr:`stopped_short` or no query was written, else 0."""
        return 1 if self.stopped_short or self.nothing_scored else 0


def words(text: str) -> set[str]:
    """Lower-case words of four letters or more (what overlap counts)."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


def overlap(query: str, passage: str) -> float:
    """Share of the query's words that appear in the passage (0 for a query without words)."""
    q = words(query)
    return len(q & words(passage)) / len(q) if q else 0.0


def normalise(query: str) -> str:
    """The form duplicates are detected on: lower case, words only, single spaces."""
    return " ".join(re.findall(r"\w+", query.lower()))


def generate_queries(
    corpus: Any,
    client: Any,
    *,
    n: int = 50,
    seed: int = 0,
    human: Any = None,
    max_cost: float | None = None,
) -> SyntheticQueries:
    """Sample ``n`` passages (seeded), ask the model for a query each, dedupe and measure.

    ``human`` is an optional judgment set whose queries are measured alike.
    """

    if n < 1:
        raise UsageError(f"-n must be 1 or more, got {n}")
    texts = dict(zip(corpus.ids, corpus.texts(), strict=True))
    picked = random.Random(seed).sample(corpus.ids, min(n, len(corpus.ids)))
    items = [Item(d, {"passage": texts[d][:MAX_PASSAGE]}) for d in picked]
    run = grade_items(items, QUERY_WRITER, client, max_cost=max_cost)
    rows, seen, dupes = [], set(), 0
    for item in run.items:
        if item.verdict is None or not item.verdict["query"].strip():
            continue
        query = item.verdict["query"].strip()
        key = normalise(query)
        if key in seen:
            dupes += 1
            continue
        seen.add(key)
        rows.append(
            {
                "query_id": f"syn-{len(rows) + 1:04d}",
                "query": query,
                "relevant": {item.id: 1},
                "source": "model",
                "synthetic": True,
                "model": client.config.model,
                "prompt_hash": QUERY_WRITER.prompt_hash,
                "overlap": round(overlap(query, texts[item.id]), 4),
            }
        )
    result = SyntheticQueries(
        model=client.config.shown(),
        prompt_hash=QUERY_WRITER.prompt_hash,
        rubric_version=QUERY_WRITER.rubric_version,
        corpus=getattr(corpus, "path", None),
        seed=seed,
        requested=len(items),
        rows=rows,
        duplicates_removed=dupes,
        unscored=len(run.unscored_items()),
        usage=run.usage,
        failed_calls=run.failed_calls(),
        stopped_at_budget=run.stopped_at_budget,
        circuit_open=run.circuit_open,
    )
    return _measure(result, corpus, texts, human)


def _measure(result: SyntheticQueries, corpus: Any, texts: dict[str, str], human: Any):

    pairs = [(r["query"], set(r["relevant"])) for r in result.rows]
    human_pairs = _human_pairs(human) if human is not None else []
    if not pairs:
        return result
    bm25 = BM25System(corpus)
    syn = _stats(bm25, pairs, texts)
    hum = _stats(bm25, human_pairs, texts) if human_pairs else None
    findings = []
    if hum is not None and syn.mrr is not None and hum.mrr is not None:
        verb = "higher" if syn.mrr > hum.mrr else "not higher"
        findings.append(
            f"BM25 scores {verb} on the synthetic queries (MRR {syn.mrr:.3f}) than on the "
            f"human queries (MRR {hum.mrr:.3f}); word overlap with the relevant passage "
            f"{syn.overlap_mean:.2f} vs {hum.overlap_mean:.2f}"
        )
        if syn.mrr > hum.mrr:
            findings.append(
                "synthetic queries reuse the passage's words: they favour lexical systems, so "
                "do not read a system's score on them as its score on people's queries"
            )
    return result.model_copy(update={"synthetic": syn, "human": hum, "findings": findings})


def _human_pairs(judgments: Any) -> list[tuple[str, set[str]]]:
    qrels = judgments.qrels
    relevant = qrels[qrels["grade"] > 0].groupby("query_id")["doc_id"].apply(set)
    texts = judgments.queries["text"]
    return [(str(texts[q]), docs) for q, docs in relevant.items() if q in texts.index]


def _stats(bm25: Any, pairs: list[tuple[str, set[str]]], texts: dict[str, str]) -> QueryStats:
    hits = bm25.search_many([q for q, _ in pairs], 100)
    rr, r10, ov = [], [], []
    for (query, docs), ranked in zip(pairs, hits, strict=True):
        ids = [h.doc_id for h in ranked]
        first = next((i for i, d in enumerate(ids, 1) if d in docs), None)
        rr.append(0.0 if first is None else 1.0 / first)
        r10.append(len(docs & set(ids[:10])) / len(docs))
        ov.append(max(overlap(query, texts.get(d, "")) for d in docs))
    k = len(pairs)
    return QueryStats(
        queries=k, overlap_mean=sum(ov) / k, mrr=sum(rr) / k, recall_at_10=sum(r10) / k
    )
