"""A system that is a Python function: ``module.path:function`` or ``file.py:function``.

The function takes ``(query_text, k)`` and returns doc ids, ``(doc_id, score)``
pairs, dicts with ``doc_id`` (or ``id``) and ``score``, or :class:`Hit` objects.
Its configuration records the spec and a hash of the source file, so editing
the function invalidates cached runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.core.hashing import cache_key, content_version
from assay.systems.base import Hit, SystemError_, coerce_hits
from assay.systems.schema import PythonTable
from assay.systems.usercode import DEFAULT_TIMEOUT, call_bounded, check_timeout, first_items

SearchFunction = Callable[..., Sequence[Any]]


def is_function_spec(spec: str) -> bool:
    """Whether ``spec`` looks like ``module.path:function`` or ``file.py:function``."""
    target, sep, attr = spec.rpartition(":")
    return bool(sep and target and attr.isidentifier())


def load_function(spec: str, *, base_dir: str | Path | None = None) -> SearchFunction:
    """Import the callable named by ``spec``.

    ``path/to/file.py:function`` is read from that file (relative to
    ``base_dir``, then the working directory); ``module.path:function`` is
    imported with the working directory and ``base_dir`` on ``sys.path``.
    Raises :class:`UsageError` when the module, file or attribute is missing.
    """
    obj = load_object(spec, base_dir=base_dir)
    if not callable(obj):
        raise UsageError(f"python system {spec!r}: {spec.rpartition(':')[2]} is not callable")
    return obj


def load_object(
    spec: str, *, base_dir: str | Path | None = None, what: str = "python system"
) -> Any:
    """The object named by ``spec`` (``module.path:NAME`` or ``path/to/file.py:NAME``).

    Found as :func:`load_function` finds a function, without requiring it to be
    callable; ``what`` names the system type in messages.
    """
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise UsageError(f"{what} {spec!r}: expected module.path:NAME or path/to/file.py:NAME")
    if target.endswith(".py") or "/" in target or "\\" in target:
        module = _module_from_file(target, spec, base_dir)
    else:
        module = _module_from_name(target, spec, base_dir)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{what} {spec!r}: {target} has no attribute {part!r}")
        obj = getattr(obj, part)
    return obj


def _module_from_file(target: str, spec: str, base_dir: str | Path | None) -> Any:
    candidates = [Path(base_dir) / target] if base_dir is not None else []
    candidates.append(Path(target))
    path = next((c.resolve() for c in candidates if c.is_file()), None)
    if path is None:
        raise UsageError(f"python system {spec!r}: file {target} not found")
    digest = cache_key(str(path), 12)
    mod_name = f"_assay_user_{path.stem}_{digest}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    loader_spec = importlib.util.spec_from_file_location(mod_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise UsageError(f"python system {spec!r}: cannot import {path}")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[mod_name] = module
    try:
        with _import_path([path.parent, Path.cwd(), *([Path(base_dir)] if base_dir else [])]):
            loader_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # an exit at import is a failed import
        del sys.modules[mod_name]
        raise UsageError(f"python system {spec!r}: importing {path} failed: {exc!r}") from None
    return module


@contextmanager
def _import_path(folders: list[Path]) -> Iterator[None]:
    """``folders`` on ``sys.path`` (first) while a user's module is imported: its
    sibling modules resolve the same way for ``file.py:function`` and ``module:function``."""
    extra = list(dict.fromkeys(str(f.resolve()) for f in folders))
    added = [p for p in extra if p not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for p in added:
            if p in sys.path:
                sys.path.remove(p)


def _module_from_name(target: str, spec: str, base_dir: str | Path | None) -> Any:
    folders = [Path.cwd(), *([Path(base_dir)] if base_dir else [])]
    try:
        with _import_path(folders):
            return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name and target.startswith(exc.name):
            raise UsageError(
                f"python system {spec!r}: no module named {target!r} "
                "(run from the folder holding it or give path/to/file.py:function)"
            ) from None
        raise UsageError(f"python system {spec!r}: importing {target} failed: {exc}") from None
    except (Exception, SystemExit) as exc:
        raise UsageError(f"python system {spec!r}: importing {target} failed: {exc!r}") from None


def _source_hash(function: Callable[..., Any]) -> str | None:
    try:
        source = inspect.getsourcefile(function)
    except TypeError:
        return None
    if not source or not Path(source).is_file():
        return None

    return content_version(Path(source).read_bytes())


class PythonSystem:
    """Wrap a ``(query_text, k, **params) -> results`` function as a system.

    Every call is bounded (:mod:`assay.systems.usercode`): at most ``timeout``
    seconds, and at most ``k`` results kept (a longer list, or a generator, is
    cut to ``k``; :attr:`over_depth` counts the calls that returned more).
    """

    def __init__(
        self,
        function: SearchFunction,
        *,
        name: str = "python",
        spec: str | None = None,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> None:
        self.function = function
        self.name = name
        self.spec = spec or (
            f"{getattr(function, '__module__', '?')}:"
            f"{getattr(function, '__qualname__', repr(function))}"
        )
        self.params = dict(params or {})
        self.timeout = DEFAULT_TIMEOUT if timeout is None else check_timeout(timeout, "timeout")
        self.over_depth = 0
        self._lock = threading.Lock()
        self._source = _source_hash(function)

    @property
    def config(self) -> dict[str, Any]:
        """The function spec, its parameters and a hash of its source file."""
        out: dict[str, Any] = {"type": "python", "function": self.spec, "source": self._source}
        if self.params:
            out["params"] = dict(self.params)
        return out

    def search(self, query: str, k: int) -> list[Hit]:
        """Call the function (bounded in time) and coerce its first ``k`` results into hits."""

        def call() -> tuple[list[Any], bool]:
            result = self.function(query, k, **self.params)
            if result is None or isinstance(result, str | bytes) or not hasattr(result, "__iter__"):
                raise SystemError_(
                    f"{self.spec} returned {type(result).__name__}; expected a list of ids, "
                    "(id, score) pairs or dicts"
                )
            return first_items(result, k)

        items, more = call_bounded(call, timeout=self.timeout, what=f"python system {self.spec}")
        if more:
            with self._lock:
                self.over_depth += 1
        return coerce_hits(items)

    def __repr__(self) -> str:
        return f"PythonSystem({self.name!r}, {self.spec!r})"


def from_config(name: str, table: PythonTable, *, corpus: Any, base_dir: Path) -> PythonSystem:
    """Registry factory: ``type = "python"`` with ``function = "module:function"``.

    ``params`` are passed to the function as keyword arguments; ``timeout``
    bounds each call.
    """
    function = load_function(table.function, base_dir=base_dir)
    return PythonSystem(
        function, name=name, spec=table.function, params=table.params or {}, timeout=table.timeout
    )
