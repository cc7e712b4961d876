"""The matrix file: system prompts x providers x fixed-evidence cases, read and checked.

::

    [matrix]
    name = "grounded-answers"
    cases = "cases.jsonl"         # fixed evidence (relative to this file)
    repeats = 3                   # each cell is asked this many times (sample index = repeat)
    baseline = "strict/small"     # the variant others are compared with (default: the first)
    alpha = 0.05
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

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import InputError, Problem, UsageError

_MATRIX_KEYS = {"name", "cases", "repeats", "baseline", "alpha", "max_cost", "judge", "assertions"}
_CASE_KEYS = {
    "case_id",
    "question",
    "documents",
    "expected_status",
    "kind",
    "must_cite",
    "must_not_contain",
}


@dataclass(frozen=True)
class Prompt:
    """A system prompt: its name, text and where it came from."""

    name: str
    text: str
    path: str | None = None

    @property
    def hash(self) -> str:
        """``sha256:`` and 16 hex digits of the text."""
        return "sha256:" + hashlib.sha256(self.text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Provider:
    """Who answers: a model (``config`` set) or a Python baseline (``function`` set)."""

    name: str
    kind: str  # "model" | "baseline"
    config: Any = None  # assay.providers.config.ModelConfig
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
    max_cost: float | None = None
    judge: Provider | None = None
    assertions: tuple[str, ...] | None = None
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
    from assay.systems.config import load_config

    p = Path(path)
    if not p.is_file():
        raise UsageError(f"matrix file not found: {p}")
    raw = load_config(p)
    base = p.parent
    where = p.name
    unknown = sorted(set(raw) - {"matrix", "prompts", "models", "baselines"})
    if unknown:
        raise UsageError(f"{where}: unknown table(s) {', '.join(unknown)}")
    table = _table(raw, "matrix", where)
    bad = sorted(set(table) - _MATRIX_KEYS)
    if bad:
        raise UsageError(f"{where}: [matrix] unknown key(s) {', '.join(bad)}")
    prompts = _prompts(_table(raw, "prompts", where), base, where)
    providers = _providers(raw, base, where)
    judge = None
    if table.get("judge") is not None:
        judge = next((m for m in providers if m.name == table["judge"]), None)
        if judge is None or judge.kind != "model":
            raise UsageError(f"{where}: judge {table['judge']!r} is not a [models.NAME] table")
        providers = tuple(m for m in providers if m.name != judge.name)
    if not providers:
        raise UsageError(f"{where}: declare at least one [models.NAME] or [baselines.NAME]")
    if "cases" not in table:
        raise UsageError(f'{where}: [matrix] cases is required (cases = "cases.jsonl")')
    cases_path = base / str(table["cases"])
    cases, version = load_matrix_cases(cases_path)
    repeats = table.get("repeats", 1)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise UsageError(f"{where}: [matrix] repeats must be a whole number >= 1")
    alpha = float(table.get("alpha", 0.05))
    if not 0 < alpha < 1:
        raise UsageError(f"{where}: [matrix] alpha must be between 0 and 1")
    max_cost = table.get("max_cost")
    cfg = MatrixConfig(
        name=str(table.get("name") or p.stem),
        path=str(p),
        prompts=prompts,
        providers=providers,
        cases=cases,
        cases_path=str(cases_path),
        cases_version=version,
        repeats=repeats,
        baseline=table.get("baseline"),
        alpha=alpha,
        max_cost=None if max_cost is None else float(max_cost),
        judge=judge,
        assertions=_assertion_names(table.get("assertions"), where),
        base_dir=str(base),
        config_hash=_hash(raw, prompts),
    )
    if cfg.baseline is not None and cfg.baseline not in cfg.variants():
        raise UsageError(
            f"{where}: baseline {cfg.baseline!r} is not a variant; use one of "
            + ", ".join(cfg.variants())
        )
    return cfg


def _table(raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = raw.get(key)
    if not isinstance(value, dict) or not value:
        raise UsageError(f"{where}: a [{key}] table is required")
    return value


def _prompts(tables: dict[str, Any], base: Path, where: str) -> tuple[Prompt, ...]:
    out = []
    for name, t in tables.items():
        if not isinstance(t, dict) or ("file" in t) == ("text" in t):
            raise UsageError(f"{where}: [prompts.{name}] needs exactly one of file or text")
        if "file" in t:
            f = base / str(t["file"])
            if not f.is_file():
                raise UsageError(f"{where}: [prompts.{name}] file not found: {f}")
            out.append(Prompt(name, f.read_text(encoding="utf-8").strip(), str(t["file"])))
        else:
            out.append(Prompt(name, str(t["text"]).strip()))
    return tuple(out)


def _providers(raw: dict[str, Any], base: Path, where: str) -> tuple[Provider, ...]:
    from assay.providers.config import model_from_table

    out: list[Provider] = []
    for name, t in (raw.get("models") or {}).items():
        if not isinstance(t, dict):
            raise UsageError(f"{where}: models must be tables: [models.NAME]")
        out.append(Provider(name, "model", config=model_from_table(name, t)))
    for name, t in (raw.get("baselines") or {}).items():
        if (
            not isinstance(t, dict)
            or not isinstance(t.get("function"), str)
            or not set(t) <= {"function", "timeout"}
        ):
            raise UsageError(
                f'{where}: [baselines.{name}] needs function = "file.py:function" '
                "(and optionally timeout = seconds)"
            )
        if any(m.name == name for m in out):
            raise UsageError(f"{where}: {name!r} is both a model and a baseline")
        timeout = t.get("timeout")
        if timeout is not None:
            from assay.systems.usercode import check_timeout

            timeout = check_timeout(timeout, f"{where}: [baselines.{name}] timeout")
        out.append(Provider(name, "baseline", function=t["function"], timeout=timeout))
    return tuple(out)


def _assertion_names(value: Any, where: str) -> tuple[str, ...] | None:
    from assay.matrix.assertions import ASSERTIONS

    if value is None:
        return None
    if not isinstance(value, list) or not all(v in ASSERTIONS for v in value):
        raise UsageError(f"{where}: [matrix] assertions must be a list of {', '.join(ASSERTIONS)}")
    return tuple(value)


def _hash(raw: dict[str, Any], prompts: tuple[Prompt, ...]) -> str:
    blob = json.dumps([raw, [p.text for p in prompts]], sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_matrix_cases(path: str | Path) -> tuple[tuple[Case, ...], str]:
    """Read and check a cases JSONL file; every problem names file, line and field."""
    from assay.answers.load import content_version
    from assay.errors import collecting
    from assay.textio import json_lines, read_text

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
    return tuple(cases), content_version(raws)


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
