"""``type = "sql"`` against real engines: each ranking equals the engine's own answer.

DuckDB full-text BM25 (the ``fts`` extension from the ``duckdb-extension-fts``
wheel, loaded by path in ``setup``), DuckDB vss (HNSW over WordLlama vectors
bound to ``:embedding``), SQLite FTS5 and PostgreSQL full-text search (the
server ``.ci/start-postgres`` starts; skipped without ``ASSAY_TEST_PG_URL``).
Every engine indexes a SciFact slice; assay's run must equal the same SQL
executed by the engine's own driver, query by query.
"""

from __future__ import annotations

import json
import pickle
import re
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.judgments.models import JudgmentSet
from assay.systems.config import build_system
from assay.systems.runner import run_system

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import framework_retrievers as fr  # noqa: E402  (the SciFact slice the framework tests use)

sys.path.remove(str(HERE))
K = 10

pytestmark = pytest.mark.skipif(
    not (fr.SCIFACT / "corpus.jsonl").is_file(), reason=f"needs BEIR SciFact at {fr.SCIFACT}"
)


def _judgments(queries: dict[str, str]) -> JudgmentSet:
    return JudgmentSet.from_records(
        [{"query_id": q, "text": t} for q, t in queries.items()], {q: {"x": 1} for q in queries}
    )


def _run(config: Path, name: str, queries: dict[str, str]) -> Any:
    system = build_system(name, config_path=config)
    try:
        return run_system(
            system, _judgments(queries), K, progress=False, max_consecutive_failures=0
        )
    finally:
        system.close()  # DuckDB: one process opens a file with one configuration at a time


def _ranking(outcome: Any) -> dict[str, list[tuple[str, float]]]:
    return outcome.run.to_dict("given")


def _same(ours: dict[str, Any], theirs: dict[str, list[tuple[str, float]]]) -> None:
    assert {q for q, hits in theirs.items() if hits} == set(ours)
    for qid, hits in ours.items():
        assert [d for d, _ in hits] == [str(d) for d, _ in theirs[qid]], qid
        assert [s for _, s in hits] == pytest.approx([s for _, s in theirs[qid]], rel=1e-9)


def _words(text: str) -> str:
    """A query as FTS5 / tsquery-safe words joined by OR."""
    return " OR ".join(re.findall(r"[A-Za-z0-9]+", text))


def _fts_extension(name: str) -> str:
    import duckdb

    module = pytest.importorskip(f"duckdb_extension_{name}")
    path = Path(module.__file__).parent / "extensions" / f"v{duckdb.__version__}"
    found = path / f"{name}.duckdb_extension"
    if not found.is_file():
        pytest.skip(f"no {name} extension for DuckDB {duckdb.__version__} in {path}")
    return str(found)


BM25_SQL = (
    "SELECT id, score FROM (SELECT id, fts_main_docs.match_bm25(id, {q}) AS score FROM docs) "
    "WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT {k}"
)


def test_duckdb_bm25_equals_duckdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import duckdb

    extension = _fts_extension("fts")
    db = tmp_path / "index.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(f"LOAD '{extension}'")
        con.execute("CREATE TABLE docs (id VARCHAR, body VARCHAR)")
        con.executemany("INSERT INTO docs VALUES (?, ?)", fr.corpus())
        con.execute("PRAGMA create_fts_index('docs', 'id', 'body')")
    monkeypatch.setenv("ASSAY_TEST_FTS", extension)
    config = tmp_path / "assay.toml"
    sql = BM25_SQL.format(q=":query", k=":k")
    config.write_text(
        f'[systems.bm25sql]\ntype = "sql"\nurl = "duckdb:///{db}"\n'
        f"setup = [\"LOAD '${{ASSAY_TEST_FTS}}'\"]\nquery = {json.dumps(sql)}\n",
        encoding="utf-8",
    )
    queries = fr.queries()
    outcome = _run(config, "bm25sql", queries)
    assert not outcome.failures
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute(f"LOAD '{extension}'")
        theirs = {
            q: con.execute(BM25_SQL.format(q="$query", k="$k"), {"query": t, "k": K}).fetchall()
            for q, t in queries.items()
        }
    assert sum(map(len, theirs.values())) > len(queries)  # a real ranking, not empty lists
    _same(_ranking(outcome), theirs)
    shown = outcome.run.metadata["system_config"]
    assert shown["setup"] == ["LOAD '${ASSAY_TEST_FTS}'"] and shown["query"] == sql
    assert outcome.run.metadata["corpus_version"] == shown["corpus_version"]
    with duckdb.connect(str(db)) as con:  # the index changes: a new configuration
        con.execute("INSERT INTO docs VALUES ('new', 'a document added later')")
        con.execute("CHECKPOINT")
    assert (
        build_system("bm25sql", config_path=config).config["corpus_version"]
        != shown["corpus_version"]
    )


def test_in_memory_database_built_by_setup(tmp_path: Path) -> None:
    """setup runs on every new connection: an in-memory DuckDB index per connection."""
    extension = _fts_extension("fts")
    rows = fr.corpus()[:50]
    (tmp_path / "docs.csv").write_text(
        "id,body\n" + "".join(f'{d},"{b.replace(chr(34), "")}"\n' for d, b in rows),
        encoding="utf-8",
    )
    setup = [
        f"LOAD '{extension}'",
        f"CREATE TABLE docs AS SELECT * FROM read_csv('{tmp_path / 'docs.csv'}', all_varchar=true)",
        "PRAGMA create_fts_index('docs', 'id', 'body')",
    ]
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.mem]\ntype = "sql"\nurl = "duckdb:///:memory:"\nsetup = {json.dumps(setup)}\n'
        f"query = {json.dumps(BM25_SQL.format(q=':query', k=':k'))}\n",
        encoding="utf-8",
    )
    queries = dict(list(fr.queries().items())[:8])
    outcome = _run(config, "mem", queries)
    assert not outcome.failures and len(outcome.run.query_ids) > 0
    import duckdb

    with duckdb.connect() as con:
        for statement in setup:
            con.execute(statement)
        theirs = {
            q: con.execute(BM25_SQL.format(q="$query", k="$k"), {"query": t, "k": K}).fetchall()
            for q, t in queries.items()
        }
    _same(_ranking(outcome), theirs)


def test_duckdb_vss_binds_the_query_embedding(tmp_path: Path) -> None:
    import duckdb

    extension = _fts_extension("vss")
    from assay.systems.embeddings import WordLlamaEncoder

    encoder = WordLlamaEncoder()
    docs = fr.corpus()[:200]
    vectors = encoder.encode([text for _, text in docs])
    db = tmp_path / "vectors.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(f"LOAD '{extension}'")
        con.execute("SET hnsw_enable_experimental_persistence = true")
        con.execute("CREATE TABLE docs (id VARCHAR, vec FLOAT[256])")
        con.executemany(
            "INSERT INTO docs VALUES (?, ?)",
            [(d, [float(x) for x in v]) for (d, _), v in zip(docs, vectors, strict=True)],
        )
        con.execute("CREATE INDEX hnsw ON docs USING HNSW (vec) WITH (metric = 'cosine')")
    sql = (
        "SELECT id, 1 - array_cosine_distance(vec, CAST({e} AS FLOAT[256])) AS score FROM docs "
        "ORDER BY array_cosine_distance(vec, CAST({e} AS FLOAT[256])) LIMIT {k}"
    )
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.vss]\ntype = "sql"\nurl = "duckdb:///{db}"\nembedding_model = "wordllama"\n'
        f"setup = [\"LOAD '{extension}'\"]\n"
        f"query = {json.dumps(sql.format(e=':embedding', k=':k'))}\n",
        encoding="utf-8",
    )
    queries = dict(list(fr.queries().items())[:10])
    outcome = _run(config, "vss", queries)
    assert not outcome.failures
    assert outcome.run.metadata["system_config"]["embedding_model"].startswith("wordllama")
    query_vectors = encoder.encode(list(queries.values()))
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute(f"LOAD '{extension}'")
        theirs = {
            q: con.execute(
                sql.format(e="$e", k="$k"), {"e": [float(x) for x in v], "k": K}
            ).fetchall()
            for q, v in zip(queries, query_vectors, strict=True)
        }
    _same(_ranking(outcome), theirs)


FTS5_SQL = (
    "SELECT id, -bm25(docs) AS score FROM docs WHERE docs MATCH {q} "
    "ORDER BY score DESC, id LIMIT {k}"
)


def test_sqlite_fts5_equals_sqlite_and_errors_are_failed_queries(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, body)")
        con.executemany("INSERT INTO docs VALUES (?, ?)", fr.corpus())
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.fts5]\ntype = "sql"\nurl = "sqlite:///{db}"\n'
        f"query = {json.dumps(FTS5_SQL.format(q=':query', k=':k'))}\n",
        encoding="utf-8",
    )
    queries = {q: _words(t) for q, t in fr.queries().items()}
    queries["broken"] = 'unbalanced "quote'  # an FTS5 syntax error: one failed query
    outcome = _run(config, "fts5", queries)
    assert [f.query_id for f in outcome.failures] == ["broken"]
    assert "fts5" in outcome.failures[0].error and outcome.failures[0].attempts == 1
    with sqlite3.connect(db) as con:
        theirs = {
            q: con.execute(FTS5_SQL.format(q="?", k="?"), (t, K)).fetchall()
            for q, t in queries.items()
            if q != "broken"
        }
    _same(_ranking(outcome), theirs)
    clone = pickle.loads(pickle.dumps(build_system("fts5", config_path=config)))  # a Ray copy
    first = next(iter(theirs))
    assert [(h.doc_id, h.score) for h in clone.search(queries[first], K)] == theirs[first]
    clone.close()


def test_timeout_interrupts_and_password_is_never_written(tmp_path: Path) -> None:
    slow = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000000) "
        "SELECT CAST(max(i) AS TEXT) AS id, length(:query) + :k AS score FROM n"
    )
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.slow]\ntype = "sql"\nurl = "sqlite:///{tmp_path / "x.db"}"\ntimeout = 0.3\n'
        f"query = {json.dumps(slow)}\n\n"
        '[systems.locked]\ntype = "sql"\n'
        'url = "postgresql+psycopg://reader:s3cret-Pw-77@127.0.0.1:9/none?connect_timeout=2"\n'
        'query = "SELECT 1 AS id, :query AS q, :k AS score"\n',
        encoding="utf-8",
    )
    started = time.monotonic()
    outcome = _run(config, "slow", {"q1": "alpha"})
    assert time.monotonic() - started < 10
    assert "within 0.3 s" in outcome.failures[0].error
    pytest.importorskip("psycopg")
    outcome = _run(config, "locked", {"q1": "alpha", "q2": "beta"})
    assert len(outcome.failures) == 2  # nothing listens on port 9: failed queries, counted
    written = json.dumps(outcome.run.metadata)
    assert "s3cret-Pw-77" not in written and "<redacted>" in written
    assert "s3cret-Pw-77" not in repr(build_system("locked", config_path=config))


@pytest.fixture
def pg_url() -> Iterator[str]:
    from helpers_pg import pg_schema_url

    yield from pg_schema_url("assay_sql")


PG_SQL = (
    "SELECT id, ts_rank_cd(tsv, q) AS score FROM docs, "
    "to_tsquery('english', "
    "array_to_string(tsvector_to_array(to_tsvector('english', {q})), ' | ')) q "
    "WHERE tsv @@ q ORDER BY score DESC, id LIMIT {k}"
)


@pytest.mark.postgres
def test_postgres_full_text_equals_postgres(tmp_path: Path, pg_url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE docs (id text PRIMARY KEY, body text, tsv tsvector)"))
        conn.execute(
            text("INSERT INTO docs (id, body) VALUES (:id, :body)"),
            [{"id": d, "body": b} for d, b in fr.corpus()],
        )
        conn.execute(text("UPDATE docs SET tsv = to_tsvector('english', body)"))
        conn.execute(text("CREATE INDEX docs_tsv ON docs USING GIN (tsv)"))
    config = tmp_path / "assay.toml"
    config.write_text(
        f'[systems.pg]\ntype = "sql"\nurl = "{pg_url}"\n'
        f"query = {json.dumps(PG_SQL.format(q=':query', k=':k'))}\n",
        encoding="utf-8",
    )
    queries = fr.queries()
    outcome = _run(config, "pg", queries)
    assert not outcome.failures
    import psycopg

    dsn = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as con:
        theirs = {
            q: con.execute(PG_SQL.format(q="%(q)s", k="%(k)s"), {"q": t, "k": K}).fetchall()
            for q, t in queries.items()
        }
    engine.dispose()
    assert sum(map(len, theirs.values())) > len(queries)
    _same(_ranking(outcome), theirs)
