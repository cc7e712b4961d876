"""The parameter space of ``assay tune``: ``--param KEY=V1,V2,...`` parsed, multiplied out,
sampled, and applied to a system's table (dotted keys reach nested tables).

A value list is read as TOML (``0.5,0.9``, ``"a","b"``, ``[0.3,0.7],[0.5,0.5]``); where
that fails, the values are split at commas and a value that is not TOML is a bare string
(``method=rrf,minmax``). Every set is checked against the system type's table model
(:data:`assay.systems.schema.SYSTEM_MODELS`) before anything is built: an unknown key or a
bad value is a :class:`~assay.core.errors.UsageError` naming ``--param``.
"""

from __future__ import annotations

import copy
import itertools
import tomllib
from typing import Any

from assay.core.errors import UsageError
from assay.systems.schema import SYSTEM_MODELS, allowed_keys

#: The option every error here names.
OPTION = "--param"


def parse_param(spec: str) -> tuple[str, list[Any]]:
    """``KEY=V1,V2,...`` as ``(key, [values])`` (values as TOML scalars or arrays)."""
    key, sep, raw = spec.partition("=")
    key = key.strip()
    parts = key.split(".")
    if not sep or not key or any(not p.strip() for p in parts) or not raw.strip():
        raise UsageError(f"{OPTION} {spec!r}: write KEY=V1,V2,... (e.g. k1=0.6,0.9,1.2)", OPTION)
    try:
        values = tomllib.loads(f"v = [{raw}]")["v"]
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        values = [_scalar(item.strip()) for item in raw.split(",")]
    if not values or any(v == "" for v in values):
        raise UsageError(f"{OPTION} {spec!r}: an empty value", OPTION)
    unique: list[Any] = []
    for value in values:
        if value not in unique:
            unique.append(value)
    return key, unique


def _scalar(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return text


def parse_params(specs: list[str]) -> dict[str, list[Any]]:
    """Every ``--param`` in order; a key given twice is refused."""
    if not specs:
        raise UsageError(f"give at least one {OPTION} KEY=V1,V2,...", OPTION)
    space: dict[str, list[Any]] = {}
    for spec in specs:
        key, values = parse_param(spec)
        if key in space:
            raise UsageError(f"{OPTION} {key} is given twice", OPTION)
        space[key] = values
    return space


def grid(space: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination, in grid order (the last key varies fastest)."""
    keys = list(space)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*space.values())]


def sample(sets: list[dict[str, Any]], trials: int, seed: int) -> list[dict[str, Any]]:
    """``trials`` distinct sets drawn at random (seeded), kept in grid order."""
    import numpy as np

    if trials < 1:
        raise UsageError(f"--trials must be 1 or more (got {trials})", "--trials")
    if trials >= len(sets):
        return list(sets)
    picks = np.random.default_rng(seed).choice(len(sets), size=trials, replace=False)
    return [sets[i] for i in sorted(int(i) for i in picks)]


def apply(table: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``table`` with each dotted key set (``params.seed``, ``weights.bm25``).

    A part naming a list is an index, or, for a hybrid's ``weights``, a member's name.
    """
    out = copy.deepcopy(table)
    for key, value in params.items():
        parts = key.split(".")
        node: Any = out
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            if isinstance(node, list):
                index = _index(node, part, key, out)
                if last:
                    node[index] = value
                else:
                    node = node[index]
                continue
            if not isinstance(node, dict):
                where = ".".join(parts[:depth])
                raise UsageError(f"{OPTION} {key}: {where} is not a table", OPTION)
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {}) if node.get(part) is not None else _new(node, part)
    return out


def _new(node: dict[str, Any], part: str) -> dict[str, Any]:
    node[part] = {}
    return node[part]


def _index(items: list[Any], part: str, key: str, table: dict[str, Any]) -> int:
    members = table.get("systems") if isinstance(table.get("systems"), list) else []
    if part.isdigit() and int(part) < len(items):
        return int(part)
    if part in members and members.index(part) < len(items):
        return members.index(part)
    raise UsageError(
        f"{OPTION} {key}: {part!r} is not an index of a list of {len(items)}"
        + (f" nor a member ({', '.join(map(str, members))})" if members else ""),
        OPTION,
    )


def prefill(table: dict[str, Any], space: dict[str, list[Any]]) -> dict[str, Any]:
    """``table`` with a hybrid's ``weights`` list filled with 1.0 per member when a
    ``weights.NAME`` key is tuned and the table sets none."""
    out = copy.deepcopy(table)
    members = out.get("systems")
    if any(k.startswith("weights.") for k in space) and isinstance(members, list):
        out.setdefault("weights", [1.0] * len(members))
    return out


def check(table: dict[str, Any], params: dict[str, Any]) -> None:
    """Refuse a set the system type's table model refuses, naming ``--param`` and the key."""
    from pydantic import ValidationError

    type_name = table.get("type")
    model = SYSTEM_MODELS.get(str(type_name))
    if model is None:
        return  # a type registered at run time: its factory checks its table
    for key in params:
        top = key.split(".")[0]
        if top not in model.model_fields or top == "type":
            raise UsageError(
                f"{OPTION} {key}: unknown key {top!r} for a {type_name} system; "
                f"it takes: {', '.join(k for k in allowed_keys(str(type_name)) if k != 'type')}",
                OPTION,
            )
    try:
        model.model_validate(table)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err.get("loc") or ())
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise UsageError(
            f"{OPTION} {shown}: {where} {str(err.get('msg', 'invalid value')).lower()}", OPTION
        ) from None


def label(params: dict[str, Any]) -> str:
    """A set as one line: ``k1=0.9 b=0.4``."""
    return " ".join(f"{k}={_shown(v)}" for k, v in params.items())


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(_shown(v) for v in value) + "]"
    return str(value)
