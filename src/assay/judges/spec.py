"""Judges declared in TOML: rubric judges (criteria on anchored scales) and pairwise judges.

::

    [judge]
    kind = "rubric"                   # or "pairwise"
    models = ["small", "large"]       # [models.NAME] of assay.toml; several make a jury
    aggregate = "majority"            # a jury's rubric scores: majority or mean
    prompt = "You review answers to questions about official statistics."
    template = "Question: {question}\\nAnswer: {answer}"

    [criteria.correct]
    description = "The figures and facts are right."
    scale = [1, 3]
    anchors = { 1 = "wrong", 2 = "partly right", 3 = "right" }

The system message is the ``prompt`` followed by the criteria, their scales and
anchors, and the answer's shape; the user message is ``template`` filled with
the fields of each item. A pairwise judge's template places the two answers
with ``{first}`` and ``{second}``: every pair is asked in both orders. The
answer is checked against a JSON schema (each criterion an integer in its
scale; a pairwise ``winner`` of ``first``, ``second`` or ``tie``); an answer
that does not fit is unscored, as for every grader (:mod:`assay.judges.grading`).

Items are JSON lines: an ``id`` and the template's fields (strings); a rubric
item may carry people's ``labels`` (``{criterion: score}``), a pair its two
answers ``a`` and ``b`` and people's ``label`` (``a``, ``b`` or ``tie``).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from assay.core.errors import InputError, Problem, ProblemLog, UsageError, _StopCollecting
from assay.core.hashing import content_version
from assay.io.config_errors import config_error, not_a_table
from assay.io.textio import json_lines, read_text
from assay.judges.graders import Grader
from assay.providers.model_config import Whole
from assay.systems.config import load_config

#: Widest scale of a criterion (top minus bottom), and most criteria of a judge.
MAX_SCALE_STEPS = 100
MAX_CRITERIA = 50
#: The positions of a pairwise prompt and the verdicts a pairwise judge may give.
POSITIONS = ("first", "second")
PAIR_VERDICTS = ("a", "b", "tie")


class CriterionTable(BaseModel):
    """A ``[criteria.NAME]`` table: what is graded and what each score means."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = Field(min_length=1, description="What the criterion asks, in a sentence.")
    scale: tuple[Whole, Whole] = Field(description="The lowest and highest score, e.g. [1, 5].")
    anchors: dict[str, str] = Field(
        description='What scores mean, e.g. { 1 = "wrong", 5 = "right" }: both ends of the '
        "scale must be anchored; every key a score of the scale."
    )

    @field_validator("scale")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        if not value[0] < value[1] <= value[0] + MAX_SCALE_STEPS:
            raise ValueError(f"must be [low, high] with low < high <= low + {MAX_SCALE_STEPS}")
        return value

    @field_validator("anchors")
    @classmethod
    def _anchored(cls, value: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        """Every anchor a score of the scale; both ends anchored."""
        if "scale" not in info.data:
            return value  # the scale is wrong already: said once
        lo, hi = info.data["scale"]
        scores = []
        for key in value:
            try:
                scores.append(int(key))
            except ValueError:
                raise ValueError(f"{key!r} is not a score") from None
        if any(not lo <= s <= hi for s in scores) or lo not in scores or hi not in scores:
            raise ValueError(
                f"both ends of the scale ({lo} and {hi}) must be anchored, and only scores "
                f"from {lo} to {hi}, got {sorted(scores)}"
            )
        return value


class JudgeTable(BaseModel):
    """The ``[judge]`` table: the kind, the models, the prompt and the template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(None, description="The judge's name (default: the file's stem).")
    kind: Literal["rubric", "pairwise"] = Field(
        description="rubric: scores per criterion; pairwise: which of two answers is better."
    )
    models: list[str] = Field(
        min_length=1,
        description="[models.NAME] tables of assay.toml; two or more make a jury.",
    )
    aggregate: Literal["majority", "mean"] = Field(
        "majority",
        description="How a jury's scores of a criterion combine: majority (a tie goes to the "
        "lower score) or mean; a pairwise jury takes the majority (no majority: a tie).",
    )
    prompt: str = Field(
        min_length=1,
        description="The system prompt written for this judge (the criteria, their anchors and "
        "the answer's shape are appended).",
    )
    template: str = Field(
        min_length=1,
        description="The user message, with {field} placeholders filled from each item; a "
        "pairwise template places the two answers with {first} and {second}.",
    )

    @field_validator("models")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("must name each model once")
        return value


class JudgeFile(BaseModel):
    """The tables a judge file may hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: dict[str, Any] = Field(description="The [judge] table (JudgeTable).")
    criteria: dict[str, Any] = Field(
        default_factory=dict,
        description="[criteria.NAME] tables (CriterionTable); a rubric judge needs one or more.",
    )


#: The typed configuration of judge files, for JSON Schema generation.
JUDGE_CONFIG_MODELS: dict[str, type[BaseModel]] = {
    "file": JudgeFile,
    "judge": JudgeTable,
    "criteria.NAME": CriterionTable,
}


@dataclass(frozen=True)
class JudgeSpec:
    """A checked judge file."""

    name: str
    path: str
    table: JudgeTable
    criteria: dict[str, CriterionTable]
    fields: tuple[str, ...]  # the template's placeholders

    @property
    def kind(self) -> str:
        """``rubric`` or ``pairwise``."""
        return self.table.kind

    def shown(self) -> dict[str, Any]:
        """What a result says of the judge."""
        t = self.table
        return {"name": self.name, "file": self.path, "kind": t.kind, "models": list(t.models),
                "aggregate": t.aggregate}  # fmt: skip


def _checked(model: type[BaseModel], value: Any, where: str) -> Any:
    path, _, table = where.partition(" [")
    table = table.rstrip("]")
    if not isinstance(value, dict):
        raise not_a_table(path, table, sorted(model.model_fields))
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        keys = sorted(model.model_fields)
        raise config_error(exc, path=path, table=table, allowed=keys) from None


def load_judge(path: str | Path) -> JudgeSpec:
    """Read and check a judge file; errors name the file, the table and the key."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"judge file not found: {p}")
    raw = load_config(p)
    where = str(p)
    if not isinstance(raw.get("judge"), dict):
        raise UsageError(f"{where}: a [judge] table is required")
    _checked(JudgeFile, raw, where)
    table: JudgeTable = _checked(JudgeTable, raw["judge"], f"{where} [judge]")
    criteria = {
        name: _checked(CriterionTable, t, f"{where} [criteria.{name}]")
        for name, t in raw.get("criteria", {}).items()
    }
    fields = _placeholders(table.template, f"{where} [judge] template")
    if table.kind == "rubric":
        if not criteria or len(criteria) > MAX_CRITERIA:
            raise UsageError(f"{where}: a rubric judge needs 1 to {MAX_CRITERIA} [criteria.NAME]")
        if "rationale" in criteria:
            raise UsageError(f"{where} [criteria.rationale]: the name is taken by the answer")
    else:
        if criteria:
            raise UsageError(f"{where} [criteria]: a pairwise judge has no criteria")
        if not set(POSITIONS) <= set(fields):
            raise UsageError(
                f"{where} [judge] template: a pairwise template needs {{first}} and {{second}}"
            )
    return JudgeSpec(table.name or p.stem, where, table, criteria, fields)


def _placeholders(template: str, where: str) -> tuple[str, ...]:
    try:
        names = [f for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise UsageError(f"{where}: {exc} (write a literal brace as {{{{ or }}}})") from None
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise UsageError(f"{where}: {{{bad[0]}}} is not a field name")
    return tuple(dict.fromkeys(names))


def _version(spec: JudgeSpec, rubric: str, template: str) -> str:
    return f"{spec.name}/{content_version([rubric, template])[7:19]}"


def rubric_grader(spec: JudgeSpec) -> Grader:
    """The grader of a rubric judge: the prompt, the criteria and anchors, the schema."""
    lines = [spec.table.prompt.strip(), "", "Grade each criterion:"]
    properties: dict[str, Any] = {}
    for name, c in spec.criteria.items():
        lo, hi = c.scale
        lines.append(f"- {name}: {c.description} Score from {lo} to {hi}:")
        for key in sorted(c.anchors, key=int):
            lines.append(f"    {key} = {c.anchors[key]}")
        properties[name] = {"type": "integer", "minimum": lo, "maximum": hi}
    shape = ", ".join(f'"{n}": {c.scale[0]}-{c.scale[1]}' for n, c in spec.criteria.items())
    lines.append(f'Reply with a JSON object: {{{shape}, "rationale": "one short sentence"}}.')
    properties["rationale"] = {"type": "string"}
    rubric = "\n".join(lines)
    return Grader(
        name="rubric-judge",
        rubric_version=_version(spec, rubric, spec.table.template),
        rubric=rubric,
        template=spec.table.template,
        schema=_schema("rubric-judge", properties),
        vote=tuple(spec.criteria),
    )


def pairwise_grader(spec: JudgeSpec) -> Grader:
    """The grader of a pairwise judge: which of the first and second answer is better."""
    rubric = (
        f"{spec.table.prompt.strip()}\n\nReply with a JSON object: "
        '{"winner": "first", "second" or "tie", "rationale": "one short sentence"}.'
    )
    properties = {
        "winner": {"type": "string", "enum": [*POSITIONS, "tie"]},
        "rationale": {"type": "string"},
    }
    return Grader(
        name="pairwise-judge",
        rubric_version=_version(spec, rubric, spec.table.template),
        rubric=rubric,
        template=spec.table.template,
        schema=_schema("pairwise-judge", properties),
        vote=("winner",),
    )


def _schema(title: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def read_items(path: str | Path, spec: JudgeSpec) -> list[dict[str, Any]]:
    """The items of a judge: an ``id`` and the template's fields, checked line by line."""
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])
    log = ProblemLog(str(p))
    needed = [f for f in spec.fields if f not in POSITIONS]
    if spec.kind == "pairwise":
        needed += ["a", "b"]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    try:
        for number, obj in json_lines(read_text(p, log) or "", log, what="item"):
            problem = _item_problem(obj, needed, spec, seen)
            if problem is not None:
                log.add(number, problem[1], field=problem[0])
                continue
            seen.add(obj["id"])
            out.append(obj)
    except _StopCollecting:
        pass
    log.raise_if_any()
    if not out:
        raise InputError([Problem(str(p), None, "no items to judge")])
    return out


def _item_problem(
    obj: dict[str, Any], needed: list[str], spec: JudgeSpec, seen: set[str]
) -> tuple[str, str] | None:
    """``(field, message)`` of the first thing wrong with an item, or ``None``."""
    if not isinstance(obj.get("id"), str) or not obj["id"]:
        return "id", "an item needs an id (a string)"
    if obj["id"] in seen:
        return "id", f"item {obj['id']!r} appears twice"
    for name in needed:
        if not isinstance(obj.get(name), str):
            return name, f"the template needs {name!r} (a string)"
    if spec.kind == "pairwise":
        label = obj.get("label")
        if label is not None and label not in PAIR_VERDICTS:
            return "label", f"label must be one of {', '.join(PAIR_VERDICTS)}, got {label!r}"
        return None
    labels = obj.get("labels")
    if labels is None:
        return None
    if not isinstance(labels, dict):
        return "labels", "labels must be an object {criterion: score}"
    for name, score in labels.items():
        c = spec.criteria.get(name)
        if c is None:
            return "labels", f"{name!r} is not a criterion ({', '.join(spec.criteria)})"
        ok = isinstance(score, int) and not isinstance(score, bool)
        if not ok or not c.scale[0] <= score <= c.scale[1]:
            return "labels", f"{name}: {score!r} is not a score from {c.scale[0]} to {c.scale[1]}"
    return None
