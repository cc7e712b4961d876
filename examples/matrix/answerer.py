"""A deterministic extractive answerer: a BASELINE for the matrix example, not a model.

It quotes the document sentence that shares the most words (four letters or
more) with the question and cites that document; below ``min_overlap`` shared
words it declines. It never reads the system prompt, so both prompts score the
same with it: the example shows the matrix machinery, offline and free.
"""

from __future__ import annotations

import re


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def _answer(question: str, documents: list[dict], min_overlap: int) -> dict:
    best = (0, "", "")
    for doc in documents:
        for sentence in re.split(r"(?<=[.!?])\s+", doc["text"]):
            overlap = len(_words(question) & _words(sentence))
            if overlap > best[0]:
                best = (overlap, doc["id"], sentence.strip())
    if best[0] < min_overlap:
        return {"status": "declined", "answer": None, "claims": []}
    return {
        "status": "answered",
        "answer": best[2],
        "claims": [{"text": best[2], "citations": [best[1]]}],
    }


def answer(system_prompt: str, question: str, documents: list[dict]) -> dict:
    """Answer when a sentence shares two or more words with the question."""
    return _answer(question, documents, min_overlap=2)


def answer_eager(system_prompt: str, question: str, documents: list[dict]) -> dict:
    """Answer when any sentence shares a word with the question (answers too readily)."""
    return _answer(question, documents, min_overlap=1)
