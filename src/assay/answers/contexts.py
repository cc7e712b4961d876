"""The retrieved contexts of free-text cases as a run, scored with the retrieval measures.

Each case's contexts, in their order, are a ranked list. A context with an id
keeps it. A context with text only is given an id by matching its text, in this
order: exactly, then normalised (Unicode NFKC, case-folded, punctuation
removed, whitespace collapsed), then as a near-duplicate (at least
:data:`NEAR` of its word 3-shingles occur in one record: a chunk of a record,
or the record lightly edited; the record sharing most wins). The records matched
are the corpus's (``--corpus``) or, without a corpus, the case's own reference
contexts. A context that matches nothing keeps its rank as an unjudged document:
it counts as not relevant, never dropped. The counts of each kind of match are
reported.

What is relevant comes from a judgment set (the query whose id is the case id,
else whose text is the question) or, without one, from the case's reference
contexts (their ids, or their texts matched the same way).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.answers.text import Context, TextCase
from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.runs.models import Run

#: The retrieval measures the contexts are scored with (assay's engine, ranks as given).
MEASURES = ("nDCG@10", "RR", "R@10", "P@5")
#: Share of a context's word 3-shingles a record must hold to be its near-duplicate.
NEAR = 0.9
MATCH_KINDS = ("id", "exact", "normalised", "near-duplicate", "unmapped", "repeated")


def normalise_text(text: str) -> str:
    """NFKC, case-folded, punctuation removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return " ".join(text.split())


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = normalise_text(text).split()
    if len(words) < 3:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


class TextIndex:
    """Records (id, text) a context's text is matched against: exact, normalised, near-duplicate."""

    def __init__(self, records: Sequence[tuple[str, str]]) -> None:
        self.exact: dict[str, str] = {}
        self.normal: dict[str, str] = {}
        self.postings: dict[tuple[str, ...], list[int]] = {}
        self.ids = [doc for doc, _ in records]
        for i, (doc, text) in enumerate(records):
            self.exact.setdefault(text, doc)
            self.normal.setdefault(normalise_text(text), doc)
            for shingle in _shingles(text):
                self.postings.setdefault(shingle, []).append(i)

    def match(self, text: str) -> tuple[str | None, str]:
        """The id ``text`` matches and how (``exact``, ``normalised``, ``near-duplicate``)."""
        if text in self.exact:
            return self.exact[text], "exact"
        normal = normalise_text(text)
        if normal in self.normal:
            return self.normal[normal], "normalised"
        mine = _shingles(text)
        if not mine:
            return None, "unmapped"
        shared = Counter(i for s in mine for i in self.postings.get(s, ()))
        if shared:
            best, count = min(shared.items(), key=lambda item: (-item[1], item[0]))
            if count / len(mine) >= NEAR:
                return self.ids[best], "near-duplicate"
        return None, "unmapped"


@dataclass
class ContextScores:
    """Retrieval measures of the contexts, per case, and how their texts were matched."""

    values: dict[str, dict[str, float]] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    matches: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MATCH_KINDS, 0))
    policy: list[str] = field(default_factory=list)

    def attach(self, rows: list[dict[str, Any]]) -> list[str]:
        """Put each case's values (``None`` and the reason when left out) on its row."""
        names = [f"contexts {m}" for m in MEASURES]
        for row in rows:
            for m, name in zip(MEASURES, names, strict=True):
                value = self.values.get(row["case_id"], {}).get(m)
                row[name] = value
                if value is None:
                    row["left_out"][name] = self.left_out.get(row["case_id"], "not scored")
        return names


def context_run(
    case: TextCase, index: TextIndex | None, counts: dict[str, int]
) -> list[tuple[str, float | None]]:
    """The case's contexts as ``(doc id, score)`` in rank order; unmatched texts get unique ids."""
    own = None if index is not None else _reference_index(case)
    out: list[tuple[str, float | None]] = []
    seen: set[str] = set()
    for rank, ctx in enumerate(case.contexts):
        doc, how = _context_id(ctx, index or own)
        counts[how] += 1
        if doc is not None and doc in seen:  # the same record again: keeps its rank, unjudged
            counts["repeated"] += 1
            doc = f"repeated:{doc}:{rank}"
        seen.add(doc or "")
        out.append((doc or f"unmapped:{rank}", ctx.score))
    return out


def _context_id(ctx: Context, index: TextIndex | None) -> tuple[str | None, str]:
    if ctx.doc_id is not None:
        return ctx.doc_id, "id"
    if ctx.text is None or index is None:
        return None, "unmapped"
    return index.match(ctx.text)


def _reference_index(case: TextCase) -> TextIndex:
    return TextIndex(
        [(c.doc_id or f"ref:{i}", c.text) for i, c in enumerate(case.reference_contexts) if c.text]
    )


def reference_ids(case: TextCase, index: TextIndex | None) -> set[str]:
    """The ids of the case's reference contexts (matched to the corpus when text only)."""
    out: set[str] = set()
    for i, ctx in enumerate(case.reference_contexts):
        if ctx.doc_id is not None:
            out.add(ctx.doc_id)
        elif index is None:
            out.add(f"ref:{i}")
        elif ctx.text is not None:
            doc, _ = index.match(ctx.text)
            out.add(doc or f"ref-unmapped:{i}")
    return out


def _norm_question(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _relevance(
    case: TextCase, index: TextIndex | None, judgments: Any, by_text: dict[str, str]
) -> tuple[dict[str, int] | None, str]:
    """The case's judged documents, or ``None`` and why there are none."""
    if judgments is None:
        refs = reference_ids(case, index)
        return ({doc: 1 for doc in refs}, "") if refs else (None, "no reference contexts")
    qid = by_text.get(f"id:{case.case_id}") or by_text.get(_norm_question(case.question))
    if qid is None:
        return None, "no judgments for the question"
    judged = judgments.relevant(qid)
    if not any(grade > 0 for grade in judged.values()):
        return None, "no relevant document judged"
    return judged, ""


def score_contexts(
    cases: Sequence[TextCase], corpus: Any = None, judgments: Any = None
) -> ContextScores:
    """Score every case's contexts as a ranked list (see the module docstring).

    ``corpus`` is a :class:`~assay.corpora.models.Corpus` text-only contexts are
    matched to; ``judgments`` a :class:`~assay.judgments.models.JudgmentSet`.
    """

    out = ContextScores()
    index = (
        None if corpus is None else TextIndex(list(zip(corpus.ids, corpus.texts(), strict=True)))
    )
    by_text: dict[str, str] = {}
    if judgments is not None:
        by_text = {_norm_question(q.text): q.query_id for q in judgments}
        by_text.update({f"id:{qid}": qid for qid in judgments.query_ids})
    queries, qrels, ranking = [], {}, {}
    for case in cases:
        if "contexts" in case.gaps:
            out.left_out[case.case_id] = case.gaps["contexts"]
            continue
        judged, reason = _relevance(case, index, judgments, by_text)
        if judged is None:
            out.left_out[case.case_id] = reason
            continue
        queries.append({"query_id": case.case_id, "text": case.question or ""})
        qrels[case.case_id] = judged
        ranking[case.case_id] = [doc for doc, _ in context_run(case, index, out.matches)]
    if queries:
        table = compute(
            JudgmentSet.from_records(queries, qrels),
            Run.from_dict({q: docs for q, docs in ranking.items() if docs}, name="contexts"),
            list(MEASURES),
            missing="zero",
            ties="given",
        )
        for i, qid in enumerate(table.query_ids):
            out.values[qid] = {str(m): float(v[i]) for m, v in table.values.items()}
    out.policy = [_policy(corpus, judgments, out.matches)]
    return out


def _policy(corpus: Any, judgments: Any, matches: dict[str, int]) -> str:
    against = f"corpus {corpus.name}" if corpus is not None else "the case's reference contexts"
    relevant = f"judgments {judgments.name}" if judgments is not None else "reference contexts"
    counts = ", ".join(f"{kind} {n}" for kind, n in matches.items())
    return (
        f"contexts: ranked as given, scored with {', '.join(MEASURES)} against {relevant}; "
        f"text-only contexts matched to {against} exactly, then normalised, then as "
        f"near-duplicates (>= {NEAR:.0%} of word 3-shingles); unmatched or repeated contexts "
        f"keep their rank as unjudged documents. Contexts by match: {counts}."
    )
