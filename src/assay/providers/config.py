"""Language models declared in ``assay.toml`` as ``[models.NAME]``.

::

    [models.small]
    base_url = "https://api.openai.com/v1"      # any OpenAI-compatible server
    model = "${SMALL_MODEL}"                      # ${VAR} read from the environment
    api_key = "${OPENAI_API_KEY}"
    input_price = 0.15                            # USD per million input tokens
    output_price = "${SMALL_MODEL_OUTPUT_PRICE}"  # numbers may come from the environment
    temperature = 0                               # default 0
    max_tokens = 512
    timeout = 60                                  # seconds per request
    concurrency = 4                               # requests in flight
    structured = "json_schema"                    # json_schema | json_object | text
    retries = 2

``${VAR}`` is expanded by :func:`assay.systems.config.resolve_env`, the one rule
for it. Values read for ``base_url``, ``api_key`` and ``headers`` are secrets:
:meth:`ModelConfig.shown` keeps their ``${VAR}`` form and nothing assay writes
holds them. The model id and prices are settings, not secrets: a judgment file
records the model id it was graded with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import UsageError

#: Structured-output modes a server may support.
STRUCTURED_MODES = ("json_schema", "json_object", "text")
_KEYS = {
    "base_url",
    "model",
    "api_key",
    "input_price",
    "output_price",
    "temperature",
    "max_tokens",
    "timeout",
    "concurrency",
    "structured",
    "retries",
    "headers",
    "rate_limit",
}
#: Keys whose resolved values are secrets.
SECRET_KEYS = ("base_url", "api_key", "headers")


@dataclass(frozen=True)
class ModelConfig:
    """One model endpoint, resolved: ready to call. Build with :func:`model_from_table`."""

    name: str
    base_url: str
    model: str
    api_key: str | None = None
    input_price: float = 0.0
    output_price: float = 0.0
    temperature: float = 0.0
    max_tokens: int = 512
    timeout: float = 60.0
    concurrency: int = 4
    structured: str = "json_schema"
    retries: int = 2
    headers: dict[str, str] = field(default_factory=dict)
    #: Requests per minute to this model across every worker (``None``: no limit).
    rate_limit: float | None = None
    secrets: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def shown(self) -> dict[str, Any]:
        """The settings as written down in results: secrets in their ``${VAR}`` form."""
        from assay.systems.config import redact

        return redact(
            {
                "name": self.name,
                "endpoint": self.endpoint,
                "model": self.model,
                "input_price": self.input_price,
                "output_price": self.output_price,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "structured": self.structured,
            },
            self.secrets,
        )

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for one call at this model's prices (per million tokens)."""
        return (input_tokens * self.input_price + output_tokens * self.output_price) / 1e6


def model_from_table(name: str, table: dict[str, Any]) -> ModelConfig:
    """Check and resolve one ``[models.NAME]`` table (``${VAR}`` read now)."""
    from assay.systems.config import resolve_env

    where = f"model {name!r}"
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) {', '.join(unknown)}; use {', '.join(sorted(_KEYS))}"
        )
    for key in ("base_url", "model"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise UsageError(f'{where}: {key} is required (e.g. {key} = "...")')
    resolved, _ = resolve_env(table, where)
    secrets = resolve_env({k: table[k] for k in SECRET_KEYS if k in table}, where)[1]
    structured = resolved.get("structured", "json_schema")
    if structured not in STRUCTURED_MODES:
        raise UsageError(f"{where}: structured must be one of {', '.join(STRUCTURED_MODES)}")
    headers = resolved.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise UsageError(f'{where}: headers must be a table of strings, e.g. {{ X-Org = "..." }}')
    return ModelConfig(
        name=name,
        base_url=resolved["base_url"],
        model=resolved["model"],
        api_key=resolved.get("api_key") or None,
        input_price=_number(resolved, "input_price", 0.0, where),
        output_price=_number(resolved, "output_price", 0.0, where),
        temperature=_number(resolved, "temperature", 0.0, where),
        max_tokens=int(_number(resolved, "max_tokens", 512, where, whole=True, low=1)),
        timeout=_number(resolved, "timeout", 60.0, where, low=0.001),
        concurrency=int(_number(resolved, "concurrency", 4, where, whole=True, low=1)),
        structured=structured,
        retries=int(_number(resolved, "retries", 2, where, whole=True)),
        headers=dict(headers),
        rate_limit=_number(resolved, "rate_limit", 0, where, low=0.001)
        if "rate_limit" in resolved
        else None,
        secrets=secrets,
    )


def load_models(config_path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The ``[models.*]`` tables of ``assay.toml`` (``--config`` or ``./assay.toml``)."""
    from assay.systems.config import find_config, load_config

    path = find_config(config_path)
    if path is None:
        return {}
    models = load_config(path).get("models", {})
    if not isinstance(models, dict) or any(not isinstance(t, dict) for t in models.values()):
        raise UsageError(f"{path}: models must be tables: [models.NAME]")
    return models


def get_model(name: str, config_path: str | Path | None = None) -> ModelConfig:
    """The resolved model ``name`` of ``assay.toml``; a clear error when it is not declared."""
    tables = load_models(config_path)
    if name not in tables:
        known = ", ".join(sorted(tables)) or "none"
        raise UsageError(
            f"no model {name!r} in assay.toml (declared: {known}); add a [models.{name}] table"
        )
    return model_from_table(name, tables[name])


def _number(
    table: dict[str, Any],
    key: str,
    default: float,
    where: str,
    *,
    whole: bool = False,
    low: float = 0.0,
) -> float:
    value = table.get(key, default)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise UsageError(f"{where}: {key} must be a number, got {value!r}") from None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < low or (whole and float(value) != int(value)):
        kind = "a whole number" if whole else "a number"
        raise UsageError(f"{where}: {key} must be {kind} >= {low:g}, got {value!r}")
    return float(value)
