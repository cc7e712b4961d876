"""Secret redaction: the one place that decides what text may be stored or printed.

Two rules, applied to every error message, sidecar, result, cache entry, store
record, report and ``assay serve`` response:

1. *Values* that came from the environment through ``${VAR}`` are registered
   (:func:`register_secret`) when they are read, and every occurrence of one
   is replaced by ``<redacted>`` in any text (:func:`redact_text`).
2. *Names*: a value written literally after a credential-looking name
   (``api_key``, ``token``, ``password``, ``secret``, ``authorization``,
   ``cookie``, ``credential``, ``signature``...) is redacted in URLs
   (``?api_key=abc``), headers (``Authorization: Bearer abc``), JSON
   (``"token": "abc"``) and ``key=value`` text. A ``${VAR}`` template is kept:
   it names the secret without holding it.
3. *Shapes*: text that looks like a credential wherever it stands (a ``Bearer``
   token, the password of ``https://user:password@host``, ``sk-...`` API keys,
   GitHub, Slack, AWS and Google key formats).

Model content (answers, rationales, generated queries) goes through
:func:`redact_text` when it is received, before it is cached, written or
printed: a model that echoes its request cannot leak the key it was sent.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any

REDACTED = "<redacted>"
#: Registered values shorter than this are not redacted (they would mangle ordinary text).
MIN_SECRET_LENGTH = 4

#: A credential's name ends with one of these words (``access_token``, ``X-Api-Key``,
#: ``client_secret``); a setting that only contains one (``token_pattern``,
#: ``max_tokens``, ``author``) is not a credential.
_NAME = (
    r"(?:[A-Za-z0-9_\-]*?(?:api[_\-]?key|apikey|access[_\-]?key|token|passw(?:or)?d|passwd|"
    r"secret|authori[sz]ation|auth|cookie|credentials?|signature|session[_\-]?id)(?![A-Za-z0-9_]))"
)
_SENSITIVE_NAME = re.compile(rf"^{_NAME}$", re.I)
_TEMPLATE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")
# "token": "value"  /  'token': 'value'
# (also when the JSON was escaped into another string: \"token\": \"value\")
_JSON_PAIR = re.compile(rf"""(\\*["']{_NAME}\\*["']\s*:\s*\\*["'])([^"'\\]*)""", re.I)
# token=value (URLs, forms, logs), stopping at & # whitespace and quotes
_KV_PAIR = re.compile(rf"""(\b{_NAME}\s*=\s*)([^&#\s"',;]+)""", re.I)
# Authorization: Bearer value  /  X-Api-Key: value (header lines)
_HEADER = re.compile(rf"""(\b{_NAME}\s*:\s*)((?:Bearer|Basic|Token)\s+)?([^\s"',;]+)""", re.I)

# credentials recognised by their shape alone
_SHAPES = re.compile(
    r"\b(?:sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{35})"
)
# https://user:password@host: the password part of a URL's user information
_USERINFO = re.compile(r"\b([a-z][a-z0-9+.\-]*://[^/\s:@]+:)([^/\s@]+)(@)", re.I)
_BEARER = re.compile(r"\b(Bearer\s+)([A-Za-z0-9._~+/\-]{12,}=*)")

_lock = threading.Lock()
_secrets: set[str] = set()


def register_secret(value: str) -> None:
    """Remember ``value`` (read from ``${VAR}``) so that it is never written or printed."""
    if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _secrets.add(value)


def is_sensitive_name(name: str) -> bool:
    """Whether a header, parameter or field name looks like it holds a credential."""
    return bool(_SENSITIVE_NAME.match(str(name)))


def _keep(value: str) -> bool:
    return bool(_TEMPLATE.match(value)) or value == REDACTED


def scrub_secrets(text: str) -> str:
    """``text`` with every registered secret value replaced (names are not looked at)."""
    if not isinstance(text, str) or not text:
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_text(text: str) -> str:
    """``text`` with registered secrets and literal credentials replaced by ``<redacted>``."""
    if not isinstance(text, str) or not text:
        return text
    text = scrub_secrets(text)
    text = _JSON_PAIR.sub(
        lambda m: m.group(0) if _keep(m.group(2)) else m.group(1) + REDACTED, text
    )
    text = _KV_PAIR.sub(lambda m: m.group(0) if _keep(m.group(2)) else m.group(1) + REDACTED, text)
    text = _HEADER.sub(
        lambda m: m.group(0) if _keep(m.group(3)) else m.group(1) + (m.group(2) or "") + REDACTED,
        text,
    )
    text = _USERINFO.sub(
        lambda m: m.group(0) if _keep(m.group(2)) else m.group(1) + REDACTED + m.group(3), text
    )
    text = _BEARER.sub(lambda m: m.group(0) if _keep(m.group(2)) else m.group(1) + REDACTED, text)
    return _SHAPES.sub(REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted and sensitive keys hidden."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if (
                is_sensitive_name(str(key))
                and isinstance(item, str | int | float)
                and not (isinstance(item, str) and _keep(item))
            ):
                out[key] = REDACTED
            else:
                out[key] = redact(item)
        return out
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
