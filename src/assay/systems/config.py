"""Systems declared in ``assay.toml`` or on the command line, and the type registry.

An ``assay.toml`` declares systems as tables::

    [systems.keyword]
    type = "keyword"            # or bm25, vector, hybrid, python, http, opensearch, solr, sql, ...
    corpus = "catalog.csv"      # relative to assay.toml
    id_field = "idno"
    text_fields = ["name", "definition_long"]

    [systems.prod]
    type = "http"
    url = "https://search.example.org/api"
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }

``${VAR}`` in a string value is read from the environment when the system is
built; the system's ``config`` shows ``${VAR}``, never the value.

Each system type is a module exposing ``from_config(name, table, *, corpus,
base_dir) -> System``, ``table`` the type's checked model of
:mod:`assay.systems.schema`; modules are imported only when their type is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.corpora.load import load_corpus
from assay.corpora.models import Corpus
from assay.io.configfile import find_config, read_config, redact, resolve_env
from assay.systems.base import Hit, System
from assay.systems.python import is_function_spec
from assay.systems.schema import check_document, validated_table

#: System type -> module holding its ``from_config``.
SYSTEM_TYPES: dict[str, str] = {
    "keyword": "assay.systems.keyword",
    "bm25": "assay.systems.bm25",
    "vector": "assay.systems.vector",
    "hybrid": "assay.systems.hybrid",
    "python": "assay.systems.python",
    "http": "assay.systems.http",
    "opensearch": "assay.systems.opensearch",
    "elasticsearch": "assay.systems.opensearch",
    "solr": "assay.systems.solr",
    "langchain": "assay.systems.frameworks",
    "llamaindex": "assay.systems.frameworks",
    "haystack": "assay.systems.frameworks",
    "sql": "assay.systems.sql",
}
#: Types that index a local corpus and cannot run without one.
CORPUS_TYPES = frozenset({"keyword", "bm25", "vector"})
#: Table keys that describe the corpus rather than the system.
CORPUS_KEYS = ("corpus", "id_field", "corpus_format")

Factory = Callable[..., System]
_REGISTERED: dict[str, Factory] = {}


def register_system_type(type_name: str, factory: Factory) -> None:
    """Add (or replace) a system type: ``factory(name, table, *, corpus, base_dir)``."""
    _REGISTERED[type_name] = factory


def system_types() -> list[str]:
    """Every known system type name."""
    return sorted({*SYSTEM_TYPES, *_REGISTERED})


def load_config(path: str | Path) -> dict[str, Any]:
    """Parse an ``assay.toml`` (:func:`~assay.io.configfile.read_config`) and check every
    ``[systems.NAME]`` table; a fault is an :class:`~assay.core.errors.InputError`
    naming its file, line, table and key."""
    return read_config(path, check=check_document)  # typed tables: refused before a build


def system_names(config_path: str | Path | None = None) -> list[str]:
    """Names of the systems declared in the config file (empty without one)."""
    p = find_config(config_path)
    return list(load_config(p).get("systems", {})) if p else []


def build_system(
    name_or_spec: str,
    *,
    config_path: str | Path | None = None,
    corpus: Corpus | str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    resolve: Callable[[str], System] | None = None,
) -> System:
    """Build a system from a declared name, a type name or ``module:function``.

    Lookup order: a ``[systems.NAME]`` table of the config file; a type name
    (``keyword``, ``bm25``, ...) configured by ``overrides`` alone; a
    ``module.path:function`` / ``file.py:function`` spec (type python).
    ``corpus`` (a loaded :class:`Corpus` or a path) and ``overrides``
    (table keys such as ``corpus``, ``id_field``, ``text_fields``; ``None``
    values ignored; paths relative to the working directory) take precedence
    over the table. ``resolve`` builds a hybrid's members by name (default:
    from the same config file). Raises :class:`UsageError` naming the file and
    table for an unknown name or type, a missing corpus or an unset environment
    variable.
    """
    cfg_path = find_config(config_path)
    systems = load_config(cfg_path).get("systems", {}) if cfg_path else {}
    cwd = Path.cwd()
    if name_or_spec in systems:
        table = dict(systems[name_or_spec])
        where = f"{cfg_path} [systems.{name_or_spec}]"
        base_dir = cfg_path.parent if cfg_path else cwd
        if "type" not in table:
            raise UsageError(f"{where}: no type; set type = one of {', '.join(system_types())}")
    elif name_or_spec in SYSTEM_TYPES or name_or_spec in _REGISTERED:
        table, where, base_dir = {"type": name_or_spec}, f"--system {name_or_spec}", cwd
    elif is_function_spec(name_or_spec):
        table, where, base_dir = {"type": "python", "function": name_or_spec}, name_or_spec, cwd
    else:
        declared = ", ".join(systems) or "none"
        raise UsageError(
            f"unknown system {name_or_spec!r}: not declared in "
            f"{cfg_path or 'assay.toml (no such file)'} (declared: {declared}), not a type "
            f"({', '.join(system_types())}) and not module.path:function"
        )
    corpus_base = base_dir
    for key, value in (overrides or {}).items():
        if value is None or (isinstance(value, list | tuple) and not value):
            continue
        table[key] = list(value) if isinstance(value, tuple) else value
        if key == "corpus":
            corpus_base = cwd
    type_name = table["type"]
    if not isinstance(type_name, str) or type_name not in system_types():
        raise UsageError(
            f"{where}: unknown system type {type_name!r}; use one of {', '.join(system_types())}"
        )
    resolved, secrets = resolve_env(table, where)
    loaded = _corpus(corpus, resolved, corpus_base)
    if loaded is None and type_name in CORPUS_TYPES:
        raise UsageError(
            f'{where}: system type {type_name!r} needs a corpus; set corpus = "path" in the '
            "table or pass --corpus"
        )
    factory = _factory(type_name, where)
    where_from = (base_dir, cfg_path, resolve)
    system = _make(factory, name_or_spec, table, resolved, loaded, where_from, type_name)
    if secrets:
        return RedactedSystem(system, secrets)
    return system


def _make(
    factory: Factory,
    name: str,
    table: dict[str, Any],
    resolved: dict[str, Any],
    loaded: Corpus | None,
    where_from: tuple[Path, Path | None, Callable[[str], System] | None],
    type_name: str,
) -> System:
    """Call a type's factory: a built-in type gets its checked table model, a registered
    type the resolved table without the corpus keys (the corpus arrives loaded).
    ``where_from``: the folder and file of the config, and who builds a hybrid's members."""
    base_dir, cfg_path, resolve = where_from
    if type_name in _REGISTERED:
        plain = {k: v for k, v in resolved.items() if k not in CORPUS_KEYS}
        return factory(name, plain, corpus=loaded, base_dir=base_dir)
    module = importlib.import_module(factory.__module__)
    # http/opensearch/solr read ${VAR} when each request is sent, so secrets never sit in config
    source = dict(table if getattr(module, "RESOLVES_ENV", False) else resolved)
    if type_name in ("vector", "sql") and cfg_path is not None:  # endpoint models: [models.NAME]
        source.setdefault("config_path", str(cfg_path))
    options = validated_table(name, source, cfg_path)
    if type_name == "hybrid":
        # members are declared in the same config; a --corpus given here applies to them too
        def _resolve(member: str) -> System:
            return build_system(member, config_path=cfg_path, corpus=loaded)

        return factory(name, options, corpus=loaded, base_dir=base_dir, resolve=resolve or _resolve)
    return factory(name, options, corpus=loaded, base_dir=base_dir)


def _corpus(corpus: Corpus | str | Path | None, table: dict[str, Any], base: Path) -> Corpus | None:

    if isinstance(corpus, Corpus):
        return corpus
    source = corpus if corpus is not None else table.get("corpus")
    if source is None:
        return None
    p = Path(source)
    if not p.is_absolute() and corpus is None:
        p = base / p
    fields = table.get("text_fields")
    return load_corpus(
        p,
        id_field=table.get("id_field"),
        text_fields=[fields] if isinstance(fields, str) else fields,
        format=table.get("corpus_format"),
    )


def _factory(type_name: str, where: str) -> Factory:
    if type_name in _REGISTERED:
        return _REGISTERED[type_name]
    module_name = SYSTEM_TYPES[type_name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UsageError(
            f"{where}: system type {type_name!r} needs the package {exc.name!r}; install it"
        ) from None
    return module.from_config


class RedactedSystem:
    """A system whose ``config`` has environment-variable values shown as ``${VAR}``."""

    def __init__(self, system: System, secrets: Mapping[str, str]) -> None:
        self.inner = system
        self.name = system.name
        self._secrets = dict(secrets)

    @property
    def config(self) -> dict[str, Any]:
        """The wrapped system's config with secrets redacted."""
        return redact(self.inner.config, self._secrets)

    def search(self, query: str, k: int) -> list[Hit]:
        """Delegate to the wrapped system."""
        return self.inner.search(query, k)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)

    def __repr__(self) -> str:
        return f"RedactedSystem({self.inner!r})"
