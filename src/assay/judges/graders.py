"""Graders: a prompt with a versioned rubric (in our own words) and a structured answer.

A grader turns one item into chat messages, names the JSON schema of the
answer, and checks an answer against it (:meth:`Grader.parse` raises
``ValueError`` for an answer of the wrong shape: the item is then unscored).
:attr:`Grader.prompt_hash` identifies the prompt and rubric a label came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.core.hashing import content_version

RELEVANCE_RUBRIC = """\
You judge search results. Grade how well the passage serves a person who typed the
query, on a scale from 0 to 3:
3 = the passage is devoted to the query and gives exactly what was asked for;
2 = the passage answers the query in part, or with gaps, or buries the answer in other matter;
1 = the passage is about the query's subject but does not answer it;
0 = the passage has nothing to do with the query.
Judge the passage alone, without outside knowledge. Do not reward length.
Reply with a JSON object: {"grade": 0-3, "rationale": "one short sentence"}."""

CLAIM_RUBRIC = """\
You check citations. Decide whether the source text, on its own, supports the claim:
every fact the claim states must be stated or directly implied by the source.
A claim that goes beyond the source, or contradicts it, is not supported.
Reply with a JSON object: {"supported": true or false, "rationale": "one short sentence"}."""

ANSWER_RUBRIC = """\
You review answers about official statistics. Check the answer against the question and
the expected facts:
- right_series: the answer uses the statistical series the question is about;
- right_period: the figures are for the period asked for;
- caveats_stated: the answer states the caveats that matter (provisional figures,
  breaks in series, estimates) or none are needed;
- unsupported_claims: how many statements in the answer no expected fact or source backs.
Reply with a JSON object: {"right_series": bool, "right_period": bool,
"caveats_stated": bool, "unsupported_claims": integer >= 0, "rationale": "one short sentence"}."""


@dataclass(frozen=True)
class Grader:
    """A prompt family: system rubric, user template, answer schema and vote field."""

    name: str
    rubric_version: str
    rubric: str
    template: str
    schema: dict[str, Any]
    vote: tuple[str, ...]

    @property
    def prompt_hash(self) -> str:
        """``sha256:`` and 16 hex digits of the rubric, template and schema."""

        return content_version([self.rubric, self.template, self.schema])

    def messages(self, fields: dict[str, str]) -> list[dict[str, str]]:
        """The chat messages for one item (``fields`` fill the template)."""
        return [
            {"role": "system", "content": self.rubric},
            {"role": "user", "content": self.template.format(**fields)},
        ]

    def parse(self, answer: Any) -> dict[str, Any]:
        """The answer's fields, checked against the schema; ``ValueError`` otherwise."""
        if not isinstance(answer, dict):
            raise ValueError("the answer is not a JSON object")
        out: dict[str, Any] = {}
        for key, spec in self.schema["properties"].items():
            if key not in answer:
                if key in self.schema.get("required", ()):
                    raise ValueError(f"the answer has no {key!r}")
                continue
            out[key] = _checked(key, answer[key], spec)
        return out

    def ballot(self, parsed: dict[str, Any]) -> Any:
        """What samples vote on (rationales aside)."""
        values = tuple(parsed.get(k) for k in self.vote)
        return values[0] if len(values) == 1 else values


def _checked(key: str, value: Any, spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{key} must be an integer, got {value!r}")
        lo, hi = spec.get("minimum"), spec.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"{key} {value} is out of range")
    elif kind == "boolean" and not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false, got {value!r}")
    elif kind == "string" and not isinstance(value, str):
        raise ValueError(f"{key} must be a string, got {value!r}")
    if "enum" in spec and value not in spec["enum"]:
        raise ValueError(f"{key} must be one of {', '.join(map(str, spec['enum']))}, got {value!r}")
    return value


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


RELEVANCE = Grader(
    name="relevance",
    rubric_version="relevance-0-3/1",
    rubric=RELEVANCE_RUBRIC,
    template="Query: {query}\nPassage: {passage}",
    schema=_schema(
        {
            "grade": {"type": "integer", "minimum": 0, "maximum": 3},
            "rationale": {"type": "string"},
        }
    ),
    vote=("grade",),
)

CLAIM_SUPPORT = Grader(
    name="claim-support",
    rubric_version="claim-support/1",
    rubric=CLAIM_RUBRIC,
    template="Claim: {claim}\nSource: {source}",
    schema=_schema({"supported": {"type": "boolean"}, "rationale": {"type": "string"}}),
    vote=("supported",),
)

ANSWER_CHECK = Grader(
    name="answer-rubric",
    rubric_version="seed-003-answer/1",
    rubric=ANSWER_RUBRIC,
    template="Question: {question}\nExpected facts: {expected}\nAnswer: {answer}",
    schema=_schema(
        {
            "right_series": {"type": "boolean"},
            "right_period": {"type": "boolean"},
            "caveats_stated": {"type": "boolean"},
            "unsupported_claims": {"type": "integer", "minimum": 0},
            "rationale": {"type": "string"},
        }
    ),
    vote=("right_series", "right_period", "caveats_stated", "unsupported_claims"),
)


def with_rubric(grader: Grader, rubric: str, version: str) -> Grader:
    """The same grader with another rubric text (``--rubric FILE``)."""
    from dataclasses import replace

    return replace(grader, rubric=rubric, rubric_version=version)


def to_scale(grade: int, scale_max: int, grader_max: int = 3) -> int:
    """A 0..``grader_max`` grade mapped onto a set's 0..``scale_max`` scale (rounded half up)."""
    return int((grade * scale_max * 2 + grader_max) // (grader_max * 2))
