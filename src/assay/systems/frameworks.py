"""LangChain, LlamaIndex and Haystack retrievers as systems under test.

``type = "langchain"`` calls a Runnable or retriever (``invoke(query)`` returns
Documents, or ``(Document, score)`` pairs), ``type = "llamaindex"`` a retriever
(``retrieve(query)`` returns NodeWithScore) or a query engine (its response's
``source_nodes``), ``type = "haystack"`` a component or Pipeline
(``run(query=..., top_k=k)`` returns ``{"documents": [...]}``). ``object`` names
the object, or a function of no argument that builds it, as a Python system
names its function (``file.py:NAME`` or ``module:NAME``). A document's id is
its metadata's ``id_key`` (default: the framework's own id); its score is the
framework's where it gives one, else the rank decides.

Each call is bounded as a Python system's is (:mod:`assay.systems.usercode`):
a deadline (``timeout``), at most ``k`` items kept, failures counted by the
runner. ``concurrency`` calls run at once; where the object has the
framework's async call (``ainvoke``, ``aretrieve``/``aquery``, ``run_async``)
and ``use_async`` is on, a batch runs on one event loop. The frameworks are
imported only by the user's own code: this module never imports them at load.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError
from assay.core.hashing import content_version
from assay.systems.base import Hit, SystemError_
from assay.systems.python import load_object
from assay.systems.schema import FrameworkTable
from assay.systems.usercode import UserCodeTimeout, call_bounded, first_items


@dataclass(frozen=True)
class Framework:
    """How one framework is called and how its answer becomes hits."""

    type: str
    package: str  #: the distribution whose version is recorded
    methods: tuple[str, ...]  #: an object with one of these is ready; else it is a builder
    call: Callable[[FrameworkSystem, Any, str, int], Any]
    acall: Callable[[FrameworkSystem, Any, str, int], Any] | None
    items: Callable[[FrameworkSystem, Any], list[Any]]
    part: Callable[[FrameworkSystem, Any], tuple[Any, Mapping[str, Any], Any]]


# -- LangChain ---------------------------------------------------------------


def _lc_kwargs(system: FrameworkSystem, k: int) -> dict[str, Any]:
    return {system.k_argument: k} if system.k_argument else {}


def _lc_call(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    return obj.invoke(query, **_lc_kwargs(system, k))


def _lc_acall(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    return obj.ainvoke(query, **_lc_kwargs(system, k)) if hasattr(obj, "ainvoke") else None


def _lc_part(system: FrameworkSystem, item: Any) -> tuple[Any, Mapping[str, Any], Any]:
    score = None
    if isinstance(item, tuple) and len(item) == 2:
        item, score = item
    return getattr(item, "id", None), getattr(item, "metadata", None) or {}, score


# -- LlamaIndex --------------------------------------------------------------


def _li_call(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    return obj.retrieve(query) if hasattr(obj, "retrieve") else obj.query(query)


def _li_acall(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    if hasattr(obj, "aretrieve"):
        return obj.aretrieve(query)
    return obj.aquery(query) if hasattr(obj, "aquery") else None


def _li_items(system: FrameworkSystem, result: Any) -> Any:
    return getattr(result, "source_nodes", result)  # a query engine's Response, or the nodes


def _li_part(system: FrameworkSystem, item: Any) -> tuple[Any, Mapping[str, Any], Any]:
    node = getattr(item, "node", item)
    return getattr(node, "node_id", None), getattr(node, "metadata", None) or {}, item.score


# -- Haystack ----------------------------------------------------------------


def _hs_inputs(system: FrameworkSystem, query: str, k: int) -> dict[str, Any]:
    data: dict[str, Any] = {system.query_argument: query}
    if system.k_argument:
        data[system.k_argument] = k
    return data


def _is_pipeline(obj: Any) -> bool:
    from haystack.core.pipeline.base import PipelineBase

    return isinstance(obj, PipelineBase)


def _hs_call(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    data = _hs_inputs(system, query, k)
    return obj.run(data=data) if _is_pipeline(obj) else obj.run(**data)


def _hs_acall(system: FrameworkSystem, obj: Any, query: str, k: int) -> Any:
    if not hasattr(obj, "run_async"):
        return None
    data = _hs_inputs(system, query, k)
    return obj.run_async(data=data) if _is_pipeline(obj) else obj.run_async(**data)


def _hs_items(system: FrameworkSystem, result: Any) -> Any:
    if not isinstance(result, Mapping):
        raise SystemError_(f"returned {type(result).__name__}, expected a dict of outputs")
    if "documents" in result:
        return result["documents"]
    holders = [c for c, out in result.items() if isinstance(out, Mapping) and "documents" in out]
    if system.output is not None:
        if system.output not in holders:
            raise SystemError_(f"no documents from component {system.output!r} (has: {holders})")
        return result[system.output]["documents"]
    if len(holders) != 1:
        raise SystemError_(
            f"the pipeline's documents come from {len(holders)} components ({holders}); "
            "set output = the component whose documents are the ranking"
        )
    return result[holders[0]]["documents"]


def _hs_part(system: FrameworkSystem, item: Any) -> tuple[Any, Mapping[str, Any], Any]:
    return getattr(item, "id", None), getattr(item, "meta", None) or {}, item.score


FRAMEWORKS: dict[str, Framework] = {
    "langchain": Framework(
        "langchain", "langchain-core", ("invoke",), _lc_call, _lc_acall, lambda s, r: r, _lc_part
    ),
    "llamaindex": Framework(
        "llamaindex",
        "llama-index-core",
        ("retrieve", "query"),
        _li_call,
        _li_acall,
        _li_items,
        _li_part,
    ),
    "haystack": Framework(
        "haystack", "haystack-ai", ("run",), _hs_call, _hs_acall, _hs_items, _hs_part
    ),
}


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


class FrameworkSystem:
    """A framework's retriever, component or pipeline, called per query (bounded).

    The object is loaded when the system is built and, if it is a builder
    (no ``invoke``/``retrieve``/``run``), called once by :meth:`prepare`: a run
    found in the cache builds nothing.
    """

    def __init__(
        self,
        name: str,
        framework: Framework,
        target: Any,
        *,
        spec: str,
        options: Any,
        source: str | None = None,
    ) -> None:
        self.name = name
        self.framework = framework
        self.spec = spec
        self.id_key: str | None = options.id_key
        self.k_argument: str | None = getattr(options, "k_argument", None)
        self.query_argument: str = getattr(options, "query_argument", "query")
        self.output: str | None = getattr(options, "output", None)
        self.timeout: float = options.timeout
        self.concurrency: int = options.concurrency
        self.use_async: bool = options.use_async
        self.over_depth = 0
        self._target = target
        self._object: Any = None
        self._source = source
        self._lock = threading.Lock()

    @property
    def config(self) -> dict[str, Any]:
        """The object spec, its source hash, the framework version and the call's keys."""
        out: dict[str, Any] = {
            "type": self.framework.type,
            "object": self.spec,
            "source": self._source,
            "framework": f"{self.framework.package} {_version(self.framework.package)}",
            "id_key": self.id_key,
        }
        if self.framework.type != "llamaindex":
            out["k_argument"] = self.k_argument
        if self.framework.type == "haystack":
            out.update(query_argument=self.query_argument, output=self.output)
        return out

    def prepare(self) -> FrameworkSystem:
        """Build the object now (a builder function is called once); returns self."""
        with self._lock:
            if self._object is None:
                target = self._target
                if not any(hasattr(target, m) for m in self.framework.methods):
                    if not callable(target):
                        raise UsageError(self._unusable(target))
                    try:
                        target = target()
                    except Exception as exc:  # the user's builder: a clear stop, no traceback
                        raise UsageError(
                            f"{self.framework.type} system {self.name!r}: building {self.spec} "
                            f"failed: {type(exc).__name__}: {exc}"
                        ) from None
                    if not any(hasattr(target, m) for m in self.framework.methods):
                        raise UsageError(self._unusable(target))
                self._object = target
        return self

    def _unusable(self, obj: Any) -> str:
        methods = " or ".join(f"{m}()" for m in self.framework.methods)
        return (
            f"{self.framework.type} system {self.name!r}: {self.spec} is a "
            f"{type(obj).__name__}, with no {methods}; name the object, or a function of no "
            "argument that builds it"
        )

    def search(self, query: str, k: int) -> list[Hit]:
        """One call (bounded in time); its first ``k`` documents as hits."""
        obj = self.prepare()._object

        def call() -> list[Hit]:
            return self._hits(self.framework.call(self, obj, query, k), k)

        return call_bounded(call, timeout=self.timeout, what=self._what())

    def search_many(self, queries: list[str], k: int) -> list[list[Hit] | BaseException]:
        """Many calls, ``concurrency`` at a time (on one event loop when async); in order."""
        obj = self.prepare()._object
        if not queries:
            return []
        if self.use_async and self.framework.acall is not None and self._has_async(obj):
            return self._gather(obj, queries, k)

        def one(query: str) -> list[Hit] | BaseException:
            try:
                return self.search(query, k)
            except Exception as exc:
                return exc

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(queries))) as pool:
            return list(pool.map(one, queries))

    def _has_async(self, obj: Any) -> bool:
        names = {"langchain": ("ainvoke",), "llamaindex": ("aretrieve", "aquery")}
        return any(hasattr(obj, n) for n in names.get(self.framework.type, ("run_async",)))

    def _gather(self, obj: Any, queries: list[str], k: int) -> list[list[Hit] | BaseException]:
        """Every query on one event loop (a worker thread of its own), each with its deadline."""
        acall = self.framework.acall
        assert acall is not None

        async def one(gate: asyncio.Semaphore, query: str) -> list[Hit] | BaseException:
            async with gate:
                try:
                    result = await asyncio.wait_for(acall(self, obj, query, k), self.timeout)
                    return self._hits(result, k)
                except TimeoutError:
                    return UserCodeTimeout(
                        f"{self._what()} did not return within {self.timeout:g} s (timeout)"
                    )
                except Exception as exc:
                    return exc

        async def every() -> list[list[Hit] | BaseException]:
            gate = asyncio.Semaphore(self.concurrency)
            return list(await asyncio.gather(*(one(gate, q) for q in queries)))

        rounds = math.ceil(len(queries) / self.concurrency)
        deadline = self.timeout * rounds + 1.0  # a coroutine that blocks its loop is cut here
        what = f"{self._what()} ({len(queries)} async calls of {self.timeout:g} s each at most)"
        return call_bounded(lambda: asyncio.run(every()), timeout=deadline, what=what)

    def _what(self) -> str:
        return f"{self.framework.type} system {self.spec}"

    def _hits(self, result: Any, k: int) -> list[Hit]:
        items = self.framework.items(self, result)
        if (
            items is None
            or isinstance(items, str | bytes | Mapping)
            or not hasattr(items, "__iter__")
        ):
            raise SystemError_(
                f"{self._what()} returned {type(items).__name__}; expected a list of documents"
            )
        kept, more = first_items(items, k)
        if more:
            with self._lock:
                self.over_depth += 1
        return [self._hit(item, rank) for rank, item in enumerate(kept, start=1)]

    def _hit(self, item: Any, rank: int) -> Hit:
        own_id, metadata, score = self.framework.part(self, item)
        doc_id = own_id if self.id_key is None else metadata.get(self.id_key)
        if doc_id is None or doc_id == "" or isinstance(doc_id, bool):
            where = "its id" if self.id_key is None else f"metadata[{self.id_key!r}]"
            raise SystemError_(
                f"{self._what()}: document {rank} has no id in {where} "
                f"(metadata keys: {sorted(metadata)[:10]}); set id_key"
            )
        if score is not None:
            try:
                score = float(score)
            except (TypeError, ValueError):
                raise SystemError_(
                    f"{self._what()}: document {rank} has a non-numeric score {score!r}"
                ) from None
        return Hit(str(doc_id), score)

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray worker gets a copy): no lock."""
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FrameworkSystem({self.framework.type!r}, {self.name!r}, {self.spec!r})"


def from_config(
    name: str, table: FrameworkTable, *, corpus: Any, base_dir: Path
) -> FrameworkSystem:
    """Registry factory for ``type = "langchain"``, ``"llamaindex"`` and ``"haystack"``
    (keys: the type's model in :mod:`assay.systems.schema`)."""
    del corpus
    framework = FRAMEWORKS[table.type]
    target = load_object(table.object, base_dir=base_dir, what=f"{table.type} system")
    return FrameworkSystem(
        name,
        framework,
        target,
        spec=table.object,
        options=table,
        source=_module_hash(table.object, base_dir),
    )


def _module_hash(spec: str, base_dir: Path) -> str | None:
    """The source hash of the file (or module) ``spec`` names: editing it invalidates runs."""
    import inspect
    import sys

    target = spec.rpartition(":")[0]
    files = [Path(base_dir) / target, Path(target)] if target.endswith(".py") else []
    module = sys.modules.get(target)
    try:
        source = inspect.getsourcefile(module) if module is not None else None
    except TypeError:
        source = None
    files += [Path(source)] if source else []
    found = next((f for f in files if f.is_file()), None)
    return None if found is None else content_version(found.read_bytes())
