"""Apache Solr's select handler with edismax as a system under test: an HttpSystem preset.

Declared in ``assay.toml`` as ``type = "solr"``; :func:`from_config`
builds it through :func:`solr_system`. The request is a GET of
``{url}/{collection}/{handler}?q=...&defType=edismax&qf=...&rows=k&fl=id,score&wt=json``;
hits come from ``response.docs``, ids from the id field, scores from ``score``.
Timeouts, retries, failures and concurrency are :class:`HttpSystem`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from assay.systems.http import HttpSystem, remote_options
from assay.systems.http_checks import bad
from assay.systems.schema import SolrTable

#: A Solr field name: what the id field and ``qf`` / ``pf`` entries look like.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
#: A collection or core name (letters, digits, ``_ . -``), or a handler path of such segments.
_SEGMENT = re.compile(r"(?!\.\.?(/|$))[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_PATH = re.compile(rf"{_SEGMENT.pattern}(/{_SEGMENT.pattern})*")
#: Parameters the preset sets itself: a ``params`` entry may not override them.
RESERVED_PARAMS = frozenset({"q", "rows", "start", "fl", "wt", "defType", "qf", "pf", "mm"})


def solr_system(
    name: str,
    *,
    url: str,
    collection: str,
    qf: str | list[str],
    pf: str | list[str] | None = None,
    mm: str | int | None = None,
    def_type: str = "edismax",
    handler: str = "select",
    id_field: str = "id",
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    **options: Any,
) -> HttpSystem:
    """An :class:`HttpSystem` preset for a Solr request handler (``select``, edismax).

    ``qf`` (and ``pf``) are the fields searched (and phrase-boosted), with
    optional ``^boost``: a list or Solr's own space-separated text. ``mm`` is
    the minimum-should-match spec (text such as ``"2<75%"``, or a count),
    ``params`` further request parameters (a list value repeats the parameter,
    e.g. several ``fq``). The request asks for ``rows = k`` and
    ``fl = {id_field},score``. ``options`` go to :class:`HttpSystem` (timeout,
    retries, backoff, concurrency, ...).
    """
    if not isinstance(url, str) or not url.strip():
        raise bad(name, "url", "must be Solr's base URL, e.g. http://localhost:8983/solr")
    if not isinstance(collection, str) or not _SEGMENT.fullmatch(collection):
        raise bad(name, "collection", f"must be a collection or core name, got {collection!r}")
    if not isinstance(handler, str) or not _PATH.fullmatch(handler.strip("/")):
        raise bad(name, "handler", f"must be a handler path such as select, got {handler!r}")
    if not isinstance(id_field, str) or not _NAME.fullmatch(id_field):
        raise bad(name, "id_field", f"must be a Solr field name, got {id_field!r}")
    pairs: list[tuple[str, str]] = [("defType", _text(name, "def_type", def_type))]
    pairs.append(("qf", _fields(name, "qf", qf)))
    if pf is not None:
        pairs.append(("pf", _fields(name, "pf", pf)))
    if mm is not None:
        count = isinstance(mm, int) and not isinstance(mm, bool) and mm >= 0
        pairs.append(("mm", str(mm) if count else _text(name, "mm", mm)))
    pairs.extend(_extra(name, params or {}))
    pairs += [("fl", f"{id_field},score"), ("wt", "json")]
    fixed = "&".join(f"{key}={quote(value, safe='')}" for key, value in pairs)
    where = f"{url.strip().rstrip('/')}/{collection}/{handler.strip('/')}"
    return HttpSystem(
        name,
        url=f"{where}?q={{query}}&rows={{k}}&{fixed}",
        method="GET",
        headers=headers,
        hits_path="response.docs",
        id_path=id_field,
        score_path="score",
        type_="solr",
        **options,
    )


def _text(name: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad(name, key, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _fields(name: str, key: str, value: Any) -> str:
    """``qf`` / ``pf``: a list of ``field^boost`` or Solr's space-separated text."""
    items = value.split() if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise bad(name, key, f'must list fields, e.g. {key} = ["title^2", "text"]')
    for item in items:
        field = item.split("^", 1)[0] if isinstance(item, str) else None
        if field is None or not _NAME.fullmatch(field):
            raise bad(name, key, f"has {item!r}, which is not field or field^boost")
    return " ".join(items)


def _extra(name: str, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ``params`` table as (key, value) pairs; a list repeats its key."""
    if not isinstance(params, Mapping):
        raise bad(name, "params", "must be a table of Solr request parameters")
    out: list[tuple[str, str]] = []
    for key, value in params.items():
        if key in RESERVED_PARAMS:
            raise bad(name, f"params.{key}", "is set by the solr system itself", _own_key(key))
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, bool):
                item = "true" if item else "false"
            if not isinstance(item, str | int | float):
                raise bad(name, f"params.{key}", f"must be text or a number, got {item!r}")
            out.append((key, str(item)))
    return out


def _own_key(key: str) -> str:
    if key in {"qf", "pf", "mm"}:
        return f"use the {key} key of the system"
    if key == "defType":
        return "use def_type"
    return "rows and fl follow k and id_field; q is the query"


#: The registry passes ``${VAR}`` through unresolved: :class:`HttpSystem` reads it per call.
RESOLVES_ENV = True


def from_config(name: str, table: SolrTable, *, corpus: Any, base_dir: Path) -> HttpSystem:
    """Build the preset from a checked ``type = "solr"`` table (``id_field``: Solr's id field)."""
    del corpus, base_dir
    return solr_system(
        name,
        url=table.url,
        collection=table.collection,
        qf=table.qf,
        pf=table.pf,
        mm=table.mm,
        def_type=table.def_type,
        handler=table.handler,
        id_field=table.id_field,
        params=table.params,
        headers=table.headers,
        **remote_options(table),
    )
