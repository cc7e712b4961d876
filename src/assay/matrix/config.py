"""The matrix file: system prompts x providers x fixed-evidence cases, read and checked.

::

    [matrix]
    name = "grounded-answers"
    cases = "cases.jsonl"         # fixed evidence (relative to this file)
    repeats = 3                   # each cell is asked this many times (sample index = repeat)
    baseline = "strict/small"     # the variant others are compared with (default: the first)
    alpha = 0.05
    correction = "holm"           # holm, bonferroni, hommel, bh, by or none
    max_cost = 0.50               # USD; calls that could pass it are not made
    judge = "large"               # optional: a provider that grades claim support (rubric)

    [prompts.strict]
    file = "prompts/strict.txt"   # or text = "..."

    [models.small]                # exactly an assay.toml [models.NAME] table
    base_url = "https://api.openai.com/v1"
    model = "${SMALL_MODEL}"
    api_key = "${OPENAI_API_KEY}"
    input_price = "${SMALL_INPUT_COST_PER_MILLION}"
    output_price = "${SMALL_OUTPUT_COST_PER_MILLION}"

    [baselines.extractive]        # a Python function: a baseline, not a model
    function = "answerer.py:answer"

A cases line: ``case_id``, ``question``, ``documents`` (``[{"id", "text"}]``),
``expected_status`` (``answered``/``declined``) and optionally ``kind``,
``must_cite`` (ids an answer must cite) and ``must_not_contain`` (text an
obeyed injected instruction would produce).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.answers.load import cases_version
from assay.core.errors import InputError, Problem, UsageError, collecting
from assay.core.hashing import content_version
from assay.core.limits import MAX_TIMEOUT
from assay.io.config_errors import config_error
from assay.io.textio import json_lines, read_text
from assay.matrix.reliability import default_ks
from assay.providers.model_config import ModelTable, Number, Whole, model_from_table
from assay.stats.corrections import CORRECTIONS, correction_field
from assay.systems.config import load_config

#: Most repeats of one cell, and most attempts (prompts x providers x cases x repeats) of a run.
MAX_REPEATS = 1000
MAX_ATTEMPTS = 1_000_000
#: The per-case assertions a matrix may check (:mod:`assay.matrix.assertions` checks them).
ASSERTIONS = ("contract", "status", "provenance", "cites", "injection", "rubric")

_CASE_KEYS = {
    "case_id",
    "question",
    "documents",
    "expected_status",
    "kind",
    "must_cite",
    "must_not_contain",
}


class MatrixTable(BaseModel):
    """The ``[matrix]`` table of a matrix file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(None, description="Name of the matrix (default: the file's stem).")
    cases: str = Field(description="Cases file (JSONL), relative to the matrix file.")
    repeats: Whole = Field(
        1, ge=1, le=MAX_REPEATS, description="How many times each cell is asked."
    )
    baseline: str | None = Field(
        None, description="The prompt/provider variant others are compared with."
    )
    alpha: Number = Field(0.05, gt=0, lt=1, description="Significance level of comparisons.")
    correction: str = correction_field()
    max_cost: Number | None = Field(
        None, ge=0, description="USD budget; calls that could pass it are not made."
    )
    judge: str | None = Field(
        None, description="A [models.NAME] that grades claim support (the rubric assertion)."
    )
    assertions: list[str] | None = Field(None, description="Assertions to check (default: all).")
    pass_k: list[Whole] | None = Field(
        None,
        description="The k values of pass@k and pass^k, each from 1 to repeats "
        "(default: 1 and repeats).",
    )

    @field_validator("correction")
    @classmethod
    def _correction(cls, value: str) -> str:
        if value.lower() not in CORRECTIONS:
            raise ValueError(f"must be one of {', '.join(CORRECTIONS)}")
        return value.lower()

    @field_validator("assertions")
    @classmethod
    def _known(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(v not in ASSERTIONS for v in value):
            raise ValueError(f"must be a list of {', '.join(ASSERTIONS)}")
        return value


class PromptTable(BaseModel):
    """A ``[prompts.NAME]`` table: the system prompt's text, inline or in a file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str | None = Field(None, description="Text file of the prompt, relative to the matrix.")
    text: str | None = Field(None, description="The prompt itself.")


class BaselineTable(BaseModel):
    """A ``[baselines.NAME]`` table: a Python function answering like a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function: str = Field(
        description='"file.py:function" or "module:function", called with system_prompt, '
        "question and documents."
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        allow_inf_nan=False,
        description="Seconds one call may take before it counts as failed (default 60; "
        "at most one day).",
    )


class MatrixFile(BaseModel):
    """A matrix file: the one document model of its tables.

    ``[models.NAME]`` tables are :class:`~assay.providers.model_config.ModelTable`
    settings, checked when their ``${VAR}`` values are read (:func:`load_matrix`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    matrix: MatrixTable = Field(description="The [matrix] table: cases, repeats, statistics.")
    prompts: dict[str, PromptTable] = Field(
        min_length=1, description="[prompts.NAME] tables: the system prompts compared."
    )
    models: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="[models.NAME] tables: model endpoints (the keys of assay.toml's models).",
        json_schema_extra={"additionalProperties": ModelTable.model_json_schema()},
    )
    baselines: dict[str, BaselineTable] = Field(
        default_factory=dict, description="[baselines.NAME] tables: Python answerers."
    )


#: The typed configuration of matrix files, for JSON Schema generation.
MATRIX_CONFIG_MODELS: dict[str, type[BaseModel]] = {
    "file": MatrixFile,
    "matrix": MatrixTable,
    "prompts.NAME": PromptTable,
    "baselines.NAME": BaselineTable,
}


#: The keys of each kind of table of a matrix file (named in errors).
_KEYS = {
    "matrix": list(MatrixTable.model_fields),
    "prompts": list(PromptTable.model_fields),
    "baselines": list(BaselineTable.model_fields),
}


def _document(raw: dict[str, Any], path: Path) -> MatrixFile:
    """The matrix file checked whole; each fault names file, line, table and key."""
    try:
        return MatrixFile.model_validate(raw)
    except ValidationError as exc:
        raise config_error(
            exc, path=path, table="", table_depth=2, single=("matrix",), allowed=_KEYS
        ) from None


@dataclass(frozen=True)
class Prompt:
    """A system prompt: its name, text and where it came from."""

    name: str
    text: str
    path: str | None = None

    @property
    def hash(self) -> str:
        """``sha256:`` and 16 hex digits of the text."""
        return content_version(self.text)


@dataclass(frozen=True)
class Provider:
    """Who answers: a model (``config`` set) or a Python baseline (``function`` set)."""

    name: str
    kind: str  # "model" | "baseline"
    config: Any = None  # assay.providers.model_config.ModelConfig
    function: str | None = None
    timeout: float | None = None  # a baseline's deadline per call (assay.systems.usercode)

    def shown(self) -> dict[str, Any]:
        """Settings as written in results (secrets in their ``${VAR}`` form)."""
        if self.kind == "model":
            return {"kind": "model", **self.config.shown()}
        return {"kind": "baseline", "name": self.name, "function": self.function}


@dataclass(frozen=True)
class Case:
    """One fixed-evidence case."""

    case_id: str
    question: str
    documents: tuple[tuple[str, str], ...]
    expected_status: str
    kind: str = ""
    must_cite: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    line: int | None = None

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """The ids of the documents given to the answerer."""
        return tuple(d for d, _ in self.documents)


@dataclass(frozen=True)
class MatrixConfig:
    """A checked matrix file."""

    name: str
    path: str
    prompts: tuple[Prompt, ...]
    providers: tuple[Provider, ...]
    cases: tuple[Case, ...]
    cases_path: str
    cases_version: str
    repeats: int = 1
    baseline: str | None = None
    alpha: float = 0.05
    correction: str = "holm"
    max_cost: float | None = None
    judge: Provider | None = None
    assertions: tuple[str, ...] | None = None
    pass_k: tuple[int, ...] = ()
    base_dir: str = "."
    config_hash: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def variants(self) -> list[str]:
        """``prompt/provider`` names in matrix order."""
        return [variant_name(p.name, m.name) for p in self.prompts for m in self.providers]


def variant_name(prompt: str, provider: str) -> str:
    """The name of one prompt x provider column."""
    return f"{prompt}/{provider}"


def load_matrix(path: str | Path) -> MatrixConfig:
    """Read and check a matrix TOML file and its cases (``${VAR}`` resolved now)."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"matrix file not found: {p}")
    raw = load_config(p)
    base = p.parent
    where = str(p)
    doc = _document(raw, p)
    table = doc.matrix
    prompts = _prompts(doc.prompts, base, where)
    providers = _providers(doc, where)
    judge = None
    if table.judge is not None:
        judge = next((m for m in providers if m.name == table.judge), None)
        if judge is None or judge.kind != "model":
            raise UsageError(
                f"{where} [matrix] judge: {table.judge!r} is not a [models.NAME] table"
            )
        providers = tuple(m for m in providers if m.name != judge.name)
    if not providers:
        raise UsageError(f"{where}: declare at least one [models.NAME] or [baselines.NAME]")
    cases_path = base / table.cases
    cases, version = load_matrix_cases(cases_path)
    attempts = len(prompts) * len(providers) * len(cases) * table.repeats
    if attempts > MAX_ATTEMPTS:
        raise UsageError(
            f"{where} [matrix] repeats: {len(prompts)} prompts x {len(providers)} providers x "
            f"{len(cases)} cases x {table.repeats} repeats = {attempts:,} attempts, more than "
            f"{MAX_ATTEMPTS:,}; lower repeats or split the cases"
        )
    cfg = MatrixConfig(
        name=table.name or p.stem,
        path=str(p),
        prompts=prompts,
        providers=providers,
        cases=cases,
        cases_path=str(cases_path),
        cases_version=version,
        repeats=table.repeats,
        baseline=table.baseline,
        alpha=table.alpha,
        correction=table.correction,
        max_cost=table.max_cost,
        judge=judge,
        assertions=None if table.assertions is None else tuple(table.assertions),
        pass_k=_pass_k(table, where),
        base_dir=str(base),
        config_hash=_hash(raw, prompts),
    )
    if cfg.baseline is not None and cfg.baseline not in cfg.variants():
        raise UsageError(
            f"{where} [matrix] baseline {cfg.baseline!r} is not a variant; use one of "
            + ", ".join(cfg.variants())
        )
    return cfg


def _pass_k(table: MatrixTable, where: str) -> tuple[int, ...]:
    """The k values of pass@k and pass^k: each from 1 to the repeats (default 1 and repeats)."""
    if table.pass_k is None:
        return tuple(default_ks(table.repeats))
    bad = [k for k in table.pass_k if not 1 <= k <= table.repeats]
    if bad or not table.pass_k:
        raise UsageError(
            f"{where} [matrix] pass_k: each k must be from 1 to repeats ({table.repeats}), "
            f"got {list(table.pass_k)}"
        )
    return tuple(sorted(set(table.pass_k)))


def _prompts(tables: dict[str, PromptTable], base: Path, where: str) -> tuple[Prompt, ...]:
    out = []
    for name, table in tables.items():
        if (table.file is None) == (table.text is None):
            raise UsageError(f"{where} [prompts.{name}]: needs exactly one of file or text")
        if table.file is not None:
            f = base / table.file
            if not f.is_file():
                raise UsageError(f"{where} [prompts.{name}] file: not found: {f}")
            out.append(Prompt(name, f.read_text(encoding="utf-8").strip(), table.file))
        else:
            out.append(Prompt(name, str(table.text).strip()))
    return tuple(out)


def _providers(doc: MatrixFile, where: str) -> tuple[Provider, ...]:
    out: list[Provider] = []
    for name, t in doc.models.items():
        out.append(Provider(name, "model", config=model_from_table(name, t, source=where)))
    for name, table in doc.baselines.items():
        if any(m.name == name for m in out):
            raise UsageError(f"{where}: {name!r} is both a model and a baseline")
        out.append(Provider(name, "baseline", function=table.function, timeout=table.timeout))
    return tuple(out)


def _hash(raw: dict[str, Any], prompts: tuple[Prompt, ...]) -> str:
    return content_version([raw, [p.text for p in prompts]])


def load_matrix_cases(path: str | Path) -> tuple[tuple[Case, ...], str]:
    """Read and check a cases JSONL file; every problem names file, line and field."""
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "file not found", hint="check [matrix] cases")])
    cases: list[Case] = []
    raws: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    with collecting(p.name) as log:
        text = read_text(p, log)
        for n, obj in json_lines(text, log, what="case") if text is not None else ():
            case = _case(obj, n, log, seen)
            if case is not None:
                cases.append(case)
                raws.append(obj)
    return tuple(cases), cases_version(raws)


def _case(obj: dict[str, Any], n: int, log: Any, seen: dict[str, int]) -> Case | None:
    before = len(log.problems)
    for key in sorted(set(obj) - _CASE_KEYS):
        log.add(n, f"unknown key {key!r}", field=key, hint=f"use {', '.join(sorted(_CASE_KEYS))}")
    for key in ("case_id", "question"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            log.add(n, f"{key} must be non-empty text", field=key)
    cid = obj.get("case_id")
    if isinstance(cid, str) and cid in seen:
        log.add(n, f"duplicate case_id {cid!r} (first seen on line {seen[cid]})", field="case_id")
    elif isinstance(cid, str):
        seen[cid] = n
    if obj.get("expected_status") not in ("answered", "declined"):
        log.add(
            n,
            f"unknown status {obj.get('expected_status')!r}",
            field="expected_status",
            hint="use 'answered' or 'declined'",
        )
    docs = obj.get("documents")
    ok_docs = isinstance(docs, list) and all(
        isinstance(d, dict) and isinstance(d.get("id"), str) and isinstance(d.get("text"), str)
        for d in docs
    )
    if not ok_docs:
        log.add(n, "documents must be a list of {id, text}", field="documents")
    elif len({d["id"] for d in docs}) != len(docs):
        log.add(n, "duplicate document id", field="documents", hint="give each document its id")
    lists = {}
    for key in ("must_cite", "must_not_contain"):
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            log.add(n, f"{key} must be a list of text", field=key)
        lists[key] = tuple(value) if isinstance(value, list) else ()
    if ok_docs and any(c not in {d["id"] for d in docs} for c in lists["must_cite"]):
        log.add(n, "must_cite names an id that is not in documents", field="must_cite")
    if len(log.problems) > before:
        return None
    return Case(
        case_id=obj["case_id"],
        question=obj["question"],
        documents=tuple((d["id"], d["text"]) for d in docs),
        expected_status=obj["expected_status"],
        kind=str(obj.get("kind") or ""),
        must_cite=lists["must_cite"],
        must_not_contain=lists["must_not_contain"],
        line=n,
    )
