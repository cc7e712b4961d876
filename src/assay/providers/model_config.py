"""Language models declared in ``assay.toml`` as ``[models.NAME]``.

::

    [models.small]
    base_url = "https://api.openai.com/v1"      # any OpenAI-compatible server (http or https)
    model = "${SMALL_MODEL}"                      # ${VAR} read from the environment
    api_key = "${OPENAI_API_KEY}"
    input_price = 0.15                            # USD per million input tokens
    output_price = "${SMALL_MODEL_OUTPUT_PRICE}"  # numbers may come from the environment
    temperature = 0                               # default 0
    max_tokens = 512
    timeout = 60                                  # seconds for a whole call, retries included
    max_response_bytes = 16777216                 # a larger answer fails the call
    concurrency = 4                               # requests in flight
    structured = "json_schema"                    # json_schema | json_object | text
    retries = 2
    rate_limit = 600                              # requests per minute, all workers together

The table is checked by :class:`ModelTable` (a pydantic model, one description
per field) when the file is read: unknown keys, wrong types, NaN, infinities,
out-of-range values and base URLs other than http(s) are a :class:`UsageError`
naming the file, the table, the key, the value and every allowed key.

``${VAR}`` is expanded by :func:`assay.io.configfile.resolve_env`, the one rule
for it. Values read for ``base_url``, ``api_key`` and ``headers`` are secrets:
:meth:`ModelConfig.shown` keeps their ``${VAR}`` form, and the API key and
credential headers are registered with :mod:`assay.core.redact`, so nothing assay
writes or prints holds them. The model id and prices are settings, not secrets:
a judgment file records the model id it was graded with.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from assay.core.errors import UsageError
from assay.core.limits import MAX_RESPONSE_BYTES, MAX_RETRIES
from assay.core.redact import is_sensitive_name, redact_text, register_secret
from assay.io.config_errors import config_error
from assay.io.configfile import find_config, read_config, redact, resolve_env

#: Structured-output modes a server may support.
STRUCTURED_MODES = ("json_schema", "json_object", "text")
#: Keys whose resolved values are secrets.
SECRET_KEYS = ("base_url", "api_key", "headers")
#: Default cap on an answer's body (bytes): the HTTP systems' cap, one rule for both.
DEFAULT_MAX_RESPONSE_BYTES = MAX_RESPONSE_BYTES
#: Upper bounds of the numeric settings (stated in the docs and every error).
MAX_TIMEOUT = 3600.0
MAX_CONCURRENCY = 64
MAX_TOKENS = 1_000_000
MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024
MAX_PRICE = 1_000_000.0
MAX_RATE_LIMIT = 1_000_000_000.0


def _number(value: Any) -> Any:
    """Numbers may be written as text (``"${PRICE}"`` resolves to text); not booleans, NaN, inf."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError("must be a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


def _whole(value: Any) -> Any:
    value = _number(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: A finite number (text allowed, booleans refused).
Number = Annotated[float, BeforeValidator(_number), Field(allow_inf_nan=False)]
#: A whole number (text allowed, booleans refused).
Whole = Annotated[int, BeforeValidator(_whole)]


def check_http_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host; ``ValueError`` otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    return url.strip()


def _http_url(value: Any) -> Any:
    return check_http_url(value) if isinstance(value, str) else value


#: What a ``${VAR}`` template looks like (for the JSON Schema of numbers).
ENV_TEMPLATE = r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$"
_KEPT = ("title", "description", "default")


def allow_env_templates(schema: dict[str, Any]) -> None:
    """JSON Schema: a number may also be written as a ``"${VAR}"`` template (read at run time)."""
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") in ("number", "integer"):
            value = {k: v for k, v in prop.items() if k not in _KEPT}
            template = {"type": "string", "pattern": ENV_TEMPLATE}
            kept = {k: prop[k] for k in _KEPT if k in prop}
            schema["properties"][name] = {**kept, "anyOf": [value, template]}


class ModelTable(BaseModel):
    """One ``[models.NAME]`` table of ``assay.toml`` (or of a matrix file), ``${VAR}`` resolved."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=allow_env_templates)

    base_url: Annotated[str, BeforeValidator(_http_url)] = Field(
        description="Base URL of an OpenAI-compatible server (http:// or https://); "
        "assay posts to {base_url}/chat/completions. A secret when read from ${VAR}."
    )
    model: str = Field(min_length=1, description="Model id sent with every request.")
    api_key: str | None = Field(
        None, description="Sent as 'Authorization: Bearer KEY'; never written or printed."
    )
    input_price: Number = Field(
        0.0, ge=0, le=MAX_PRICE, description="USD per million input tokens."
    )
    output_price: Number = Field(
        0.0, ge=0, le=MAX_PRICE, description="USD per million output tokens."
    )
    temperature: Number = Field(0.0, ge=0, le=2, description="Sampling temperature, 0 to 2.")
    max_tokens: Whole = Field(
        512, ge=1, le=MAX_TOKENS, description="Most tokens an answer may have."
    )
    timeout: Number = Field(
        60.0,
        gt=0,
        le=MAX_TIMEOUT,
        description="Seconds a whole call may take, retries included, however the server "
        "sends its answer; then the call fails.",
    )
    max_response_bytes: Whole = Field(
        DEFAULT_MAX_RESPONSE_BYTES,
        ge=1,
        le=MAX_RESPONSE_BYTES_LIMIT,
        description="Largest answer body read, in bytes; a larger one fails the call.",
    )
    concurrency: Whole = Field(
        4, ge=1, le=MAX_CONCURRENCY, description="Requests in flight at once."
    )
    structured: Literal["json_schema", "json_object", "text"] = Field(
        "json_schema",
        description="How the answer's JSON shape is asked for: json_schema (OpenAI, vLLM), "
        "json_object (llama.cpp) or text (parsed for the first JSON object).",
    )
    retries: Whole = Field(
        2,
        ge=0,
        le=MAX_RETRIES,
        description="Further attempts after a transient failure (timeout, connection "
        "error, 408, 429, 5xx), within the timeout.",
    )
    max_consecutive_failures: Whole = Field(
        10,
        ge=0,
        le=1_000_000,
        description="Stop calling this model after this many failed calls in a row "
        "(0: never); the calls left are not made and the command exits 1.",
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra HTTP headers; values are secrets."
    )
    rate_limit: Number | None = Field(
        None,
        gt=0,
        le=MAX_RATE_LIMIT,
        description="Most requests per minute to this model, retries included, counted over "
        "every worker (local or a Ray cluster); none: no limit.",
    )


class ModelConfig(ModelTable):
    """One model endpoint, resolved: ready to call. Build with :func:`model_from_table`."""

    name: str = Field(description="The NAME of [models.NAME].")
    secrets: dict[str, str] = Field(
        default_factory=dict,
        repr=False,
        exclude=True,
        description="Values read from the environment -> their ${VAR} form.",
    )

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def shown(self) -> dict[str, Any]:
        """The settings as written down in results: secrets in their ``${VAR}`` form."""
        shown = redact(
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
        shown["endpoint"] = redact_text(shown["endpoint"])
        return shown

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for one call at this model's prices (per million tokens)."""
        return (input_tokens * self.input_price + output_tokens * self.output_price) / 1e6


#: The typed configuration of model endpoints, for JSON Schema generation.
MODEL_CONFIG_MODELS: dict[str, type[BaseModel]] = {"models.NAME": ModelTable}
ALLOWED_KEYS = tuple(sorted(ModelTable.model_fields))


def model_from_table(
    name: str, table: dict[str, Any], *, source: str | Path | None = None
) -> ModelConfig:
    """Check and resolve one ``[models.NAME]`` table (``${VAR}`` read now).

    ``source`` is the file the table came from (named in errors).
    """
    where = f"{source} [models.{name}]" if source is not None else f"[models.{name}]"
    resolved, _ = resolve_env(table, where)
    secrets = resolve_env({k: table[k] for k in SECRET_KEYS if k in table}, where)[1]
    try:
        checked = ModelTable.model_validate(resolved)
    except ValidationError as exc:
        raise config_error(
            exc, path=source, table=f"models.{name}", allowed=ALLOWED_KEYS, secrets=secrets
        ) from None
    cfg = ModelConfig(**checked.model_dump(), name=name, secrets=secrets)
    if cfg.api_key:
        register_secret(cfg.api_key)  # assay.core.redact: never written or printed
    for header, value in cfg.headers.items():
        if is_sensitive_name(header) or value in secrets:
            register_secret(value)
            register_secret(value.split()[-1] if value.split() else value)
    return cfg


def load_models(config_path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The ``[models.*]`` tables of ``assay.toml`` (``--config`` or ``./assay.toml``)."""
    return _models_of(find_config(config_path))


def _models_of(path: Path | None) -> dict[str, dict[str, Any]]:
    if path is None:
        return {}
    return read_config(path).get("models", {})  # tables: checked by read_config


def get_model(name: str, config_path: str | Path | None = None) -> ModelConfig:
    """The resolved model ``name`` of ``assay.toml``; a clear error when it is not declared."""
    path = find_config(config_path)
    tables = _models_of(path)
    if name not in tables:
        known = ", ".join(sorted(tables)) or "none"
        raise UsageError(
            f"no model {name!r} in {path or 'assay.toml'} (declared: {known}); "
            f"add a [models.{name}] table"
        )
    return model_from_table(name, tables[name], source=path)
