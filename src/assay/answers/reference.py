"""Reference measures of a free-text answer, no model: exact match, token F1, ROUGE-L, similarity.

* ``exact_match`` and ``token_f1`` follow the SQuAD v1.1 evaluation rule: both
  texts are lower-cased, ASCII punctuation is removed, the English articles
  ``a``, ``an`` and ``the`` are removed as words, and runs of whitespace become
  one space; exact match compares the normalised texts, token F1 is the F1 of the
  multiset overlap of their whitespace tokens (0 when they share none, also when
  both are empty). With several references the best one counts.
* ``rouge_l`` is the ``rouge-score`` package's ``rougeL`` F-measure (its own
  tokenizer, no stemmer), the best over the references.
* ``answer_similarity`` is the cosine of an embedding model's vectors of the
  answer and the reference (the best over the references).

The SQuAD rule is English: other languages keep their articles, a script
without spaces (Chinese, Japanese, Thai) is one token per run of text, so F1
falls back to exact match. ROUGE-L's tokenizer keeps only ``a-z`` and ``0-9``:
accented letters split words and a text in another script has no token at all;
such a case is left out of ``rouge_l`` (reason ``no ROUGE tokens``), never
scored 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

#: The normalisation, in words (the policy line of a report).
POLICY = (
    "exact_match and token_f1: SQuAD v1.1 rule (lower-case, ASCII punctuation removed, "
    "English articles a/an/the removed, whitespace collapsed; best over references); "
    "English-only: other languages keep their articles and a script without spaces is "
    "one token, so token_f1 falls back to exact match there. rouge_l: rouge-score's rougeL "
    "F-measure, no stemmer; its tokenizer keeps a-z and 0-9 only, so a case whose answer "
    "or reference has no such token is left out (no ROUGE tokens)."
)

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """The SQuAD v1.1 normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(answer: str, references: Sequence[str]) -> bool:
    """True when the normalised answer equals any normalised reference."""
    mine = normalize_answer(answer)
    return any(mine == normalize_answer(ref) for ref in references)


def token_f1(answer: str, references: Sequence[str]) -> float:
    """The best SQuAD v1.1 token F1 of ``answer`` against ``references``."""
    return max((_f1(answer, ref) for ref in references), default=0.0)


def _f1(answer: str, reference: str) -> float:
    mine = normalize_answer(answer).split()
    theirs = normalize_answer(reference).split()
    same = sum((Counter(mine) & Counter(theirs)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(mine), same / len(theirs)
    return 2 * precision * recall / (precision + recall)


@lru_cache(maxsize=1)
def _scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_tokens(text: str) -> list[str]:
    """The tokens rouge-score's default tokenizer reads in ``text`` (no stemmer)."""
    from rouge_score import tokenize

    return list(tokenize.tokenize(text, None))


def rouge_l(answer: str, references: Sequence[str]) -> float | None:
    """rouge-score's rougeL F-measure, best over ``references``.

    ``None`` when the answer or every reference has no token rouge-score reads
    (the case is left out, not scored 0).
    """
    readable = [ref for ref in references if rouge_tokens(ref)]
    if not readable or not rouge_tokens(answer):
        return None
    scorer = _scorer()
    if len(readable) == 1:
        return float(scorer.score(readable[0], answer)["rougeL"].fmeasure)
    return float(scorer.score_multi(readable, answer)["rougeL"].fmeasure)


def similarities(
    encoder: Any, answers: Sequence[str], references: Sequence[Sequence[str]]
) -> list[float]:
    """Cosine of ``encoder``'s vectors of each answer and its references (best reference).

    The encoder returns unit rows (see :mod:`assay.systems.embeddings`), so the
    dot product is the cosine.
    """
    import numpy as np

    flat = [ref for refs in references for ref in refs]
    vectors = encoder.encode([*answers, *flat])
    answer_vecs, ref_vecs = vectors[: len(answers)], vectors[len(answers) :]
    out: list[float] = []
    start = 0
    for i, refs in enumerate(references):
        block = ref_vecs[start : start + len(refs)]
        start += len(refs)
        out.append(float(np.max(block @ answer_vecs[i])))
    return out
