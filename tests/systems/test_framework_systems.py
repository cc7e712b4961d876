"""LangChain, LlamaIndex and Haystack systems: assay's run ranks as the framework does.

Each framework's own components (LangChain's InMemoryVectorStore, a LlamaIndex
VectorStoreIndex, Haystack's InMemoryBM25Retriever) index a SciFact slice
(tests/systems/framework_retrievers.py); assay runs the declared system over the
queries and every query's ranking (ids and scores) must equal what the framework
answers when called directly.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.systems.config import build_system
from assay.systems.runner import run_system

HERE = Path(__file__).resolve().parent
BUILDERS = HERE / "framework_retrievers.py"
K = 10


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No telemetry, and LlamaIndex reads the NLTK data it ships (nothing downloaded)."""
    monkeypatch.setenv("HAYSTACK_TELEMETRY_ENABLED", "False")
    monkeypatch.delenv("NLTK_DATA", raising=False)


@pytest.fixture(scope="module")
def retrievers() -> Any:
    import framework_retrievers as fr

    if not (fr.SCIFACT / "corpus.jsonl").is_file():
        pytest.skip(f"needs BEIR SciFact at {fr.SCIFACT}")
    return fr


@pytest.fixture(scope="module", autouse=True)
def _on_path() -> Any:
    import sys

    sys.path.insert(0, str(HERE))
    yield
    sys.path.remove(str(HERE))


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "assay.toml"
    path.write_text(body, encoding="utf-8")
    return path


def _judgments(queries: dict[str, str]) -> JudgmentSet:
    return JudgmentSet.from_records(
        [{"query_id": q, "text": t} for q, t in queries.items()], {q: {"x": 1} for q in queries}
    )


def _assay(config: Path, name: str, queries: dict[str, str]) -> tuple[dict[str, Any], Any]:
    system = build_system(name, config_path=config)
    outcome = run_system(system, _judgments(queries), K, progress=False)
    assert not outcome.failures, [f.error for f in outcome.failures]
    # the framework's order as given (trec_eval's tie order may swap equal scores: BM25 has them)
    return _plain(outcome.run.to_dict("given")), outcome


def _plain(run: dict[str, list[tuple[str, float]]]) -> dict[str, list[tuple[str, Any]]]:
    return {q: [(d, None if math.isnan(s) else s) for d, s in hits] for q, hits in run.items()}


def _same(ours: dict[str, Any], theirs: dict[str, list[tuple[str, float | None]]]) -> None:
    assert set(ours) == set(theirs)
    for qid, expected in theirs.items():
        got = ours[qid]
        assert [d for d, _ in got] == [d for d, _ in expected], qid
        if expected and expected[0][1] is not None:
            assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-6)


def test_langchain_retriever_and_scored_runnable(tmp_path: Path, retrievers: Any) -> None:
    config = _config(
        tmp_path,
        f"""
[systems.lc]
type = "langchain"
object = "{BUILDERS}:langchain_retriever"
id_key = "doc_id"
k_argument = "k"

[systems.lc_scored]
type = "langchain"
object = "{BUILDERS}:langchain_scored"
""",
    )
    queries = retrievers.queries()
    ours, outcome = _assay(config, "lc", queries)
    direct = retrievers.langchain_retriever()
    theirs = {
        q: [(d.metadata["doc_id"], None) for d in direct.invoke(text, k=K)]
        for q, text in queries.items()
    }
    _same(ours, theirs)
    assert outcome.run.metadata["system_config"]["framework"].startswith("langchain-core ")
    scored, _ = _assay(config, "lc_scored", queries)
    store = retrievers.langchain_store()
    theirs = {
        q: [(d.id, s) for d, s in store.similarity_search_with_score(text, k=K)]
        for q, text in queries.items()
    }
    _same(scored, theirs)


def test_llamaindex_retriever_and_query_engine(tmp_path: Path, retrievers: Any) -> None:
    config = _config(
        tmp_path,
        f"""
[systems.li]
type = "llamaindex"
object = "{BUILDERS}:llamaindex_retriever"
id_key = "doc_id"

[systems.li_sync]
type = "llamaindex"
object = "{BUILDERS}:llamaindex_retriever"
use_async = false
concurrency = 1

[systems.li_engine]
type = "llamaindex"
object = "{BUILDERS}:llamaindex_query_engine"
id_key = "doc_id"
""",
    )
    queries = retrievers.queries()
    direct = retrievers.llamaindex_retriever()
    theirs = {
        q: [(n.node.metadata["doc_id"], n.score) for n in direct.retrieve(text)]
        for q, text in queries.items()
    }
    _same(_assay(config, "li", queries)[0], theirs)  # aretrieve on one event loop
    _same(_assay(config, "li_engine", queries)[0], theirs)  # aquery's source nodes
    own_ids = {q: [(f"li-{d}", s) for d, s in hits] for q, hits in theirs.items()}
    _same(_assay(config, "li_sync", queries)[0], own_ids)  # retrieve(), node ids


def test_haystack_component_and_pipeline(tmp_path: Path, retrievers: Any) -> None:
    config = _config(
        tmp_path,
        f"""
[systems.hs]
type = "haystack"
object = "{BUILDERS}:haystack_retriever"
id_key = "doc_id"

[systems.hs_pipeline]
type = "haystack"
object = "{BUILDERS}:haystack_pipeline"
id_key = "doc_id"
use_async = false

[systems.hs_two]
type = "haystack"
object = "{BUILDERS}:haystack_two_retrievers"
id_key = "doc_id"

[systems.hs_second]
type = "haystack"
object = "{BUILDERS}:haystack_two_retrievers"
id_key = "doc_id"
output = "second"
""",
    )
    queries = retrievers.queries()
    direct = retrievers.haystack_retriever()
    theirs = {
        q: [(d.meta["doc_id"], d.score) for d in direct.run(query=text, top_k=K)["documents"]]
        for q, text in queries.items()
    }
    assert any(theirs.values())
    _same(_assay(config, "hs", queries)[0], theirs)
    _same(_assay(config, "hs_pipeline", queries)[0], theirs)
    _same(_assay(config, "hs_second", queries)[0], theirs)  # run_async of a Pipeline
    two = dict(list(queries.items())[:2])
    system = build_system("hs_two", config_path=config)
    outcome = run_system(system, _judgments(two), K, progress=False)
    assert len(outcome.failures) == 2 and "set output" in outcome.failures[0].error


def test_bounded_like_python_systems(tmp_path: Path) -> None:
    """A slow object times out (a failed query), a missing id is a failed query, a builder
    that returns nothing usable is a usage error naming the spec."""
    user = tmp_path / "slow.py"
    user.write_text(
        "import time\n"
        "class Slow:\n"
        "    def invoke(self, query, **kw):\n"
        "        time.sleep(5)\n"
        "        return []\n"
        "class NoId:\n"
        "    def invoke(self, query, **kw):\n"
        "        return [type('D', (), {'id': None, 'metadata': {}})()]\n"
        "SLOW = Slow()\n"
        "NOID = NoId()\n"
        "def nothing():\n"
        "    return 42\n"
        "def broken():\n"
        "    raise RuntimeError('no index here')\n",
        encoding="utf-8",
    )
    config = _config(
        tmp_path,
        f"""
[systems.slow]
type = "langchain"
object = "{user}:SLOW"
timeout = 0.2

[systems.noid]
type = "langchain"
object = "{user}:NOID"

[systems.nothing]
type = "langchain"
object = "{user}:nothing"

[systems.broken]
type = "langchain"
object = "{user}:broken"
""",
    )
    queries = {"q1": "alpha"}
    started = time.monotonic()
    outcome = run_system(
        build_system("slow", config_path=config), _judgments(queries), K, progress=False
    )
    assert time.monotonic() - started < 4
    assert outcome.failures and "within 0.2 s" in outcome.failures[0].error
    outcome = run_system(
        build_system("noid", config_path=config), _judgments(queries), K, progress=False
    )
    assert "has no id" in outcome.failures[0].error
    for name, message in (("nothing", "is a int"), ("broken", "no index here")):
        with pytest.raises(UsageError, match=message):
            run_system(
                build_system(name, config_path=config), _judgments(queries), K, progress=False
            )


def test_table_is_validated(tmp_path: Path) -> None:
    from assay.core.errors import InputError
    from assay.systems.config import load_config

    config = _config(
        tmp_path, '[systems.x]\ntype = "haystack"\nobject = "m:x"\ntimeout = -1\nidkey = "a"\n'
    )
    with pytest.raises(InputError) as info:
        load_config(config)
    text = str(info.value)
    assert "timeout" in text and "did you mean id_key" in text


def test_runs_are_cached_until_the_source_changes(tmp_path: Path) -> None:
    from assay.systems.cache import RunCache

    user = tmp_path / "mine.py"
    source = (
        "class Fixed:\n"
        "    def invoke(self, query, **kw):\n"
        "        return [(type('D', (), {'id': 'd1', 'metadata': {}})(), 1.0)]\n"
        "def build():\n"
        "    return Fixed()\n"
    )
    user.write_text(source, encoding="utf-8")
    config = _config(tmp_path, f'[systems.mine]\ntype = "langchain"\nobject = "{user}:build"\n')
    cache, queries = RunCache(tmp_path / "cache"), {"q1": "alpha"}

    def run() -> Any:
        system = build_system("mine", config_path=config)
        return run_system(system, _judgments(queries), K, progress=False, cache=cache)

    assert not run().cached
    assert run().cached
    user.write_text(source + "# edited\n", encoding="utf-8")
    assert not run().cached  # the source hash is part of the configuration


def test_async_calls_have_the_same_deadline(tmp_path: Path) -> None:
    """ainvoke past its timeout is a failed query; one blocking its event loop is cut too."""
    user = tmp_path / "slow_async.py"
    user.write_text(
        "import asyncio, time\n"
        "class Waits:\n"
        "    def invoke(self, query, **kw):\n"
        "        return []\n"
        "    async def ainvoke(self, query, **kw):\n"
        "        await asyncio.sleep(5)\n"
        "class Blocks(Waits):\n"
        "    async def ainvoke(self, query, **kw):\n"
        "        time.sleep(3)\n"
        "WAITS = Waits()\n"
        "BLOCKS = Blocks()\n",
        encoding="utf-8",
    )
    tables = "".join(
        f'[systems.{n}]\ntype = "langchain"\nobject = "{user}:{n.upper()}"\ntimeout = 0.2\n'
        for n in ("waits", "blocks")
    )
    config = _config(tmp_path, tables)
    queries = {"q1": "alpha", "q2": "beta"}
    for name in ("waits", "blocks"):
        started = time.monotonic()
        outcome = run_system(
            build_system(name, config_path=config), _judgments(queries), K, progress=False
        )
        assert time.monotonic() - started < 2.5, name
        assert len(outcome.failures) == 2 and "0.2 s" in outcome.failures[0].error, name
