"""A stand-in RAG system for collect tests: answers from a fixed table."""

from __future__ import annotations

ANSWERS = {
    "how many people go hungry": (["FS_UNDERNOURISH_PCT", "PV_HEADCOUNT_NPL_PCT"], "7.6%"),
    "taux de chômage": (["LF_UNEMP_PCT"], "5,1 %"),
}


def answer(question: str, record: dict) -> dict:
    """Return a dict response; declines what it does not know."""
    if question not in ANSWERS:
        return {
            "response": {"status": "declined", "claims": []},
            "retrieved_ids": ["PV_HEADCOUNT_NPL_PCT"],
        }
    ids, value = ANSWERS[question]
    claim = {"text": f"The latest value is {value} ({record['language']}).", "citations": ids[:1]}
    return {
        "response": {"status": "answered", "answer": claim["text"], "claims": [claim]},
        "retrieved_ids": ids,
    }


def answer_tuple(question: str):
    """Return a (response, retrieved hits) pair with (id, score) hits."""
    return {"status": "declined", "claims": []}, [("LF_UNEMP_PCT", 1.0)]


def broken(question: str) -> str:
    """Return something that is not a response."""
    return "not a response"


def flaky(question: str, record: dict) -> dict:
    """Fail on the French question, answer the others like :func:`answer`."""
    if record.get("language") == "fr":
        raise RuntimeError("backend timed out")
    return answer(question, record)
