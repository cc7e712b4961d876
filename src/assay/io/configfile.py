"""The config file (``assay.toml``): finding it, reading it, ``${VAR}`` and secrets.

:func:`find_config` picks the file (``--config``, else ``./assay.toml``);
:func:`read_config` parses it (a syntax error is an
:class:`~assay.core.errors.InputError` with its line) and checks its shape
(:class:`ConfigDocument`); the layer that owns a kind of table checks its
tables (``[systems.NAME]``: :func:`assay.systems.config.load_config`).
:func:`resolve_env` is the one rule for ``${VAR}`` (read from the environment
when a table is used); :func:`redact` shows the values read in their
``${VAR}`` form again.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.core.errors import InputError, Problem, UsageError
from assay.io.config_errors import validation_problems

#: The file read when no ``--config`` is given (if it exists in the working directory).
DEFAULT_CONFIG = "assay.toml"
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

#: A check of a parsed document: ``check(data, path, text)`` raises on a fault.
Check = Callable[[dict[str, Any], Path, str | None], None]


class ConfigDocument(BaseModel):
    """An ``assay.toml``: its ``[systems.NAME]`` and ``[models.NAME]`` tables.

    Each system table is then checked by its type's model
    (:data:`assay.systems.schema.SYSTEM_MODELS`), each models table by
    :class:`assay.providers.model_config.ModelTable` when it is used (its
    ``${VAR}`` values are read then).
    """

    model_config = ConfigDict(extra="allow")

    systems: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Systems under test: [systems.NAME] tables."
    )
    models: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Model endpoints: [models.NAME] tables."
    )


def find_config(config_path: str | Path | None = None) -> Path | None:
    """``config_path`` if given (it must exist), else ``./assay.toml`` if present."""
    if config_path is not None:
        p = Path(config_path)
        if not p.is_file():
            raise UsageError(f"config file {p} not found")
        return p
    default = Path(DEFAULT_CONFIG)
    return default if default.is_file() else None


def read_config(path: str | Path, check: Check | None = None) -> dict[str, Any]:
    """Parse an ``assay.toml`` and check its shape (then ``check``, if given).

    A syntax error is an :class:`InputError` with its line; so is a
    ``[systems]`` or ``[models]`` entry that is not a table.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "file not found", hint="check --config")])
    text: str | None = None
    try:
        text = p.read_bytes().decode("utf-8")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(
            [
                Problem(
                    str(p),
                    int(m.group(1)) if m else None,
                    f"invalid TOML: {exc}",
                    hint="check quotes, brackets and = signs",
                )
            ]
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            [Problem(str(p), None, f"not UTF-8: {exc}", hint="save as UTF-8")]
        ) from None
    except (RecursionError, ValueError) as exc:  # nesting thousands deep, 5,000-digit ints
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise InputError(
            [Problem(str(p), None, f"invalid TOML: {reason}", hint="simplify the value")]
        ) from None
    try:
        ConfigDocument.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            validation_problems(exc, path=p, table="", text=text, table_depth=2)
        ) from None
    if check is not None:
        check(data, p, text)
    return data


# ---------------------------------------------------------------- secrets
def resolve_env(table: Mapping[str, Any], where: str = "config") -> tuple[dict[str, Any], dict]:
    """Replace ``${VAR}`` in string values (nested too) with the environment's value.

    Returns the resolved table and ``{value: "${VAR}"}`` for every value read,
    used by :func:`redact`. An unset variable is a :class:`UsageError`.
    """
    secrets: dict[str, str] = {}

    def sub(value: Any, key: str) -> Any:
        if isinstance(value, str):

            def one(m: re.Match[str]) -> str:
                var = m.group(1)
                if var not in os.environ:
                    raise UsageError(
                        f"{where}: {key} uses ${{{var}}} but the environment variable "
                        f"{var} is not set"
                    )
                if os.environ[var]:
                    secrets[os.environ[var]] = m.group(0)
                return os.environ[var]

            return _ENV.sub(one, value)
        if isinstance(value, dict):
            return {k: sub(v, f"{key}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v, key) for v in value]
        return value

    resolved = {k: sub(v, k) for k, v in table.items()}
    return resolved, secrets


def redact(value: Any, secrets: Mapping[str, str]) -> Any:
    """A copy of ``value`` with every secret string replaced by its ``${VAR}`` form."""
    if isinstance(value, str):
        for secret in sorted(secrets, key=len, reverse=True):
            value = value.replace(secret, secrets[secret])
        return value
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v, secrets) for v in value]
    return value
