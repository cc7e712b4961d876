"""Relevance labels from a model: ``assay judge llm PAIRS --corpus CORPUS --model NAME``.

PAIRS is a pool file (JSON lines with ``query_id``, ``query`` and ``doc_id``,
as ``assay judge pool`` writes them) or any judgment set (its pairs are
regraded). Each pair gets a 0-3 grade (:data:`~assay.judges.graders.RELEVANCE`)
mapped onto the set's own scale; the output is a pair-label file with
``source = "model"``, the model id as assessor, the prompt hash, rubric
version and date, and the rationale when asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.core.errors import InputError, Problem, ProblemLog, UsageError, _StopCollecting
from assay.core.failures import FAILED_CALLS
from assay.io.fileio import write_text_atomic
from assay.io.formats import detect_pairs
from assay.io.textio import json_lines, read_text
from assay.judges.graders import RELEVANCE, Grader, to_scale
from assay.judges.grading import GradingRun, Item, grade_items
from assay.judgments.load import load_judgments
from assay.providers.client import ChatClient
from assay.results.models import ResultModel, utc_now


@dataclass(frozen=True)
class Pair:
    """One (query, document) pair to grade."""

    query_id: str
    query: str
    doc_id: str


def read_pairs(
    path: str | Path, *, queries: str | Path | None = None
) -> tuple[list[Pair], int | None]:
    """The pairs of a pool file or a judgment set, and the set's top grade (``None`` for a pool).

    ``queries`` is the queries file of TREC qrels. A query without text cannot
    be graded: that is a :class:`UsageError` naming the first such query.
    """
    p = Path(path)
    if detect_pairs(p) is not None:
        return _read_pool(p), None

    judgments = load_judgments(p, queries=queries) if queries else load_judgments(p)
    texts = judgments.queries["text"]
    q = judgments.qrels
    pairs = [
        Pair(qid, "" if texts[qid] is None else str(texts[qid]), doc)
        for qid, doc in zip(q["query_id"].tolist(), q["doc_id"].tolist(), strict=True)
    ]
    blank = next((pair.query_id for pair in pairs if not pair.query.strip()), None)
    if blank is not None:
        raise UsageError(
            f"{p}: query {blank!r} has no text to grade against; give the queries file "
            "(--queries) or a pool file with a query per line"
        )
    top = int(q["grade"].max()) if len(q) else None
    return pairs, top


def _read_pool(p: Path) -> list[Pair]:

    log = ProblemLog(str(p))
    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    try:
        for number, obj in json_lines(read_text(p, log) or "", log, what="pair"):
            values = [obj.get(k) for k in ("query_id", "query", "doc_id")]
            bad = [
                k
                for k, v in zip(("query_id", "query", "doc_id"), values, strict=True)
                if not isinstance(v, str) or not v.strip()
            ]
            if bad:
                log.add(
                    number, f"missing or empty {bad[0]}", field=bad[0], hint="see assay judge pool"
                )
                continue
            if (values[0], values[2]) in seen:
                continue
            seen.add((values[0], values[2]))
            pairs.append(Pair(*values))
    except _StopCollecting:
        pass
    log.raise_if_any()
    return pairs


def relevance_items(pairs: list[Pair], corpus: Any) -> list[Item]:
    """Grader items of the pairs; a doc missing from the corpus is an input error."""
    texts = dict(zip(corpus.ids, corpus.texts(), strict=True))
    missing = [p for p in pairs if p.doc_id not in texts]
    if missing:
        shown = ", ".join(f"{p.query_id}/{p.doc_id}" for p in missing[:5])
        raise InputError(
            [
                Problem(
                    str(corpus.path or corpus.name),
                    None,
                    f"{len(missing)} judged doc(s) not in the corpus: {shown}",
                    hint="grade pairs of documents the corpus holds",
                )
            ]
        )
    return [
        Item(
            f"{p.query_id}/{p.doc_id}",
            {"query": p.query, "passage": texts[p.doc_id]},
            {"query_id": p.query_id, "doc_id": p.doc_id, "query": p.query},
        )
        for p in pairs
    ]


def grade_relevance(
    pairs: list[Pair],
    corpus: Any,
    client: ChatClient,
    *,
    scale_max: int = 3,
    samples: int = 1,
    max_cost: float | None = None,
    grader: Grader = RELEVANCE,
    on_call: Callable[..., None] | None = None,
) -> GradingRun:
    """Grade every pair's relevance; ``run.items[i].verdict['grade']`` is on the 0-3 scale."""
    if scale_max < 1:
        raise UsageError(f"--scale-max must be 1 or more, got {scale_max}")
    items = relevance_items(pairs, corpus)
    return grade_items(items, grader, client, samples=samples, max_cost=max_cost, on_call=on_call)


def label_lines(
    run: GradingRun,
    pairs: list[Pair],
    *,
    scale_max: int,
    date: str,
    rationale: bool = False,
) -> list[dict[str, Any]]:
    """The pair-label records of the scored pairs (``source = model``)."""
    out = []
    for pair, item in zip(pairs, run.items, strict=True):
        if item.verdict is None:
            continue
        raw = int(item.verdict["grade"])
        row: dict[str, Any] = {
            "query_id": pair.query_id,
            "doc_id": pair.doc_id,
            "grade": to_scale(raw, scale_max),
            "source": "model",
            "assessor": run.model["model"],
            "model_grade": raw,
            "rubric_version": run.rubric_version,
            "prompt_hash": run.prompt_hash,
            "date": date,
            "query": pair.query,
        }
        if item.samples:
            row["samples"] = item.samples
            row["flip"] = item.flip
        if rationale and isinstance(item.verdict.get("rationale"), str):
            row["rationale"] = item.verdict["rationale"]
        out.append(row)
    return out


class JudgeJob(ResultModel):
    """What ``assay judge llm`` did: the grading run, the scale and the file written."""

    schema_version: str = "1"
    kind: Literal["model_judgments"] = "model_judgments"
    run: GradingRun
    scale_max: int
    output: str | None = None
    labels_written: int = 0
    summary: dict[str, Any] = Field(default_factory=dict)
    unscored: list[dict[str, Any]] = Field(default_factory=list)

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls, named for ``max_failed``."""
        return self.run.failed_runs(f"judge llm --model {self.run.model.get('name')}")

    def exit_code(self) -> int:
        """1 when the budget or the circuit breaker stopped the calls, or nothing was graded."""
        return self.run.exit_code()


def run_relevance_job(
    pairs: list[Pair],
    corpus: Any,
    client: ChatClient,
    output: str | Path | None,
    *,
    set_top: int | None = None,
    scale_max: int | None = None,
    samples: int = 1,
    max_cost: float | None = None,
    rationale: bool = False,
    on_call: Callable[..., None] | None = None,
) -> JudgeJob:
    """Grade ``pairs`` and write the scored ones as pair labels to ``output`` (atomically).

    The scale is ``scale_max``, else the judgment set's top grade, else 0-3.
    """

    top = scale_max if scale_max is not None else (set_top if set_top else 3)
    run = grade_relevance(
        pairs, corpus, client, scale_max=top, samples=samples, max_cost=max_cost, on_call=on_call
    )
    rows = label_lines(run, pairs, scale_max=top, date=utc_now(), rationale=rationale)
    if output is not None:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        write_text_atomic(output, text)
    return JudgeJob(
        run=run,
        scale_max=top,
        output=None if output is None else str(output),
        labels_written=len(rows),
        summary=run.summary(),
        unscored=run.unscored_items(),
    )
