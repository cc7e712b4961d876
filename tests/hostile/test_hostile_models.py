"""Model endpoints as an attacker or an unlucky user meets them.

An endpoint that echoes the API key, drips its answer, floods it, fails in
every way an HTTP server can, or is not HTTP at all; budgets and sizes that
would switch checks off. Every command that calls models must keep the key
out of every file and stream, end in bounded time, and exit 1 (calls failed)
or 2 (bad configuration), never 0 and never with a traceback.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from model_servers import BadModelServer, closed_port

from assay.cli.app import main
from llm_stub import StubServer

DATA = Path(__file__).resolve().parents[1] / "data" / "judges"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix"
ENV_KEY = "sk-hostile-env-key-4711"
LITERAL_KEY = "sk-literalkey0123456789abcdefXYZ"


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "unexpected" not in out.err and "Traceback" not in out.err, out.err
    return int(exc.value.code or 0), out.out, out.err


def _toml(tmp: Path, base_url: str, **settings: object) -> Path:
    lines = [f'base_url = "{base_url}"', 'model = "m"']
    lines += [f"{k} = {json.dumps(v) if isinstance(v, str) else v}" for k, v in settings.items()]
    path = tmp / "assay.toml"
    path.write_text("[models.m]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def _pool(tmp: Path, n: int = 3) -> Path:
    lines = (DATA / "pool.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    path = tmp / "pool.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _judge(tmp: Path, toml: Path, *extra: object) -> list[object]:
    return [
        "judge", "llm", _pool(tmp), "--corpus", DATA / "docs.jsonl", "--model", "m",
        "--config", toml, "-o", tmp / "labels.jsonl", "--cache-dir", tmp / "cache", *extra,
    ]  # fmt: skip


def _every_file(root: Path) -> Iterator[Path]:
    return (p for p in root.rglob("*") if p.is_file())


# ------------------------------------------------------------------ secrets
@pytest.mark.parametrize("literal", [False, True], ids=["key-from-env", "literal-key"])
def test_an_echoed_key_is_written_nowhere(
    literal: bool,
    stub: StubServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """judge llm --rationale, generate queries and matrix against an endpoint echoing the key."""
    monkeypatch.setenv("ECHO_KEY", ENV_KEY)
    monkeypatch.chdir(tmp_path)
    key = LITERAL_KEY if literal else ENV_KEY
    api_key = LITERAL_KEY if literal else "${ECHO_KEY}"
    toml = _toml(tmp_path, stub.base_url, api_key=api_key)
    toml.write_text(toml.read_text().replace('model = "m"', 'model = "stub-echo"'))
    store = f"sqlite:///{tmp_path / 'history.db'}"
    streams = []

    code, out, err = _run([*_judge(tmp_path, toml, "--rationale", "--format", "json")], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert rows and all("you sent Authorization: Bearer <redacted>" in r["rationale"] for r in rows)
    streams += [out, err]

    code, out, err = _run(
        ["generate", "queries", "--corpus", DATA / "docs.jsonl", "--model", "m", "--config",
         toml, "-n", "3", "-o", tmp_path / "queries.jsonl", "--cache-dir", tmp_path / "cache",
         "--report", tmp_path / "queries-report.json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "<redacted>" in (tmp_path / "queries.jsonl").read_text()
    streams += [out, err]

    matrix = _matrix(tmp_path, stub.base_url, f'api_key = "{api_key}"\nmodel = "stub-echo"')
    code, out, err = _run(
        ["matrix", matrix, "-o", tmp_path / "matrix.json", "--store", store, "--cache-dir",
         tmp_path / "cache", "-f", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "<redacted>" in (tmp_path / "matrix.json").read_text()
    streams += [out, err]

    assert stub.state.headers[-1]["authorization"] == f"Bearer {key}"  # it was sent
    needle = key.encode()
    written = [p for p in _every_file(tmp_path) if p.suffix != ".toml"]  # not the configs
    leaked = [p.name for p in written if needle in p.read_bytes()]
    assert leaked == [], leaked  # outputs, model-calls.sqlite (and its WAL), history store
    assert (tmp_path / "cache" / "model-calls.sqlite").is_file()
    assert (tmp_path / "history.db").is_file()
    assert all(key not in s for s in streams)


def _matrix(tmp: Path, base_url: str, model_lines: str, matrix_lines: str = "") -> Path:
    shutil.copytree(EXAMPLE / "prompts", tmp / "prompts", dirs_exist_ok=True)
    shutil.copy(EXAMPLE / "cases.jsonl", tmp / "cases.jsonl")
    path = tmp / "matrix.toml"
    path.write_text(
        f'[matrix]\nname = "hostile"\ncases = "cases.jsonl"\nrepeats = 1\n{matrix_lines}\n'
        '[prompts.strict]\nfile = "prompts/strict.txt"\n'
        f'[models.m]\nbase_url = "{base_url}"\n{model_lines}\n',
        encoding="utf-8",
    )
    return path


def test_an_error_body_echoing_the_key_is_redacted(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = _toml(tmp_path, stub.base_url, api_key=LITERAL_KEY)
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q", "query": "ECHO400 please", "doc_id": "d1"}\n')
    code, out, err = _run(
        ["judge", "llm", pool, "--corpus", DATA / "docs.jsonl", "--model", "m", "--config",
         toml, "-o", tmp_path / "l.jsonl", "--no-cache", "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 1
    assert "HTTP 400" in out and "<redacted>" in out and "failed model calls" in err
    assert LITERAL_KEY not in out + err


# ------------------------------------------------------------------ bounded calls
@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["drip", "drip-headers"])
def test_a_dripping_server_is_cut_off_at_the_timeout(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """timeout = 2 bounds each whole call: three pairs, each cut off, well under 15 s."""
    with BadModelServer(mode, pause=0.5) as server:
        toml = _toml(tmp_path, server.base_url, timeout=2, concurrency=3, retries=2)
        start = time.monotonic()
        code, _out, err = _run(_judge(tmp_path, toml), capsys)
        took = time.monotonic() - start
        requests, dripped = server.requests, server.dripped
    assert code == 1, err
    assert "3 failed model calls" in err and "within timeout 2 s" in err
    assert requests == 3  # one attempt per pair: the deadline covers the retries
    assert dripped < 3 * 8  # about four drips per call, not the 120-byte budget each
    assert took < 15


@pytest.mark.timeout(60)
def test_a_flooding_server_is_cut_off_at_max_response_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with BadModelServer("flood") as server:
        toml = _toml(tmp_path, server.base_url, max_response_bytes=1_000_000, concurrency=1)
        code, _out, err = _run(_judge(tmp_path, toml), capsys)
        sent = server.sent
    assert code == 1, err
    assert "larger than max_response_bytes" in err
    assert sent < 3 * 32 * 1024 * 1024  # socket buffers at most, not the 256 MiB budget


# ------------------------------------------------------------------ exit codes
FAILING = ["status:400", "status:500", "not-json", "gateway", "gateway-200"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", [*FAILING, "refused"])
def test_judge_llm_exits_1_when_calls_fail(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if mode == "refused":
        toml = _toml(tmp_path, f"http://127.0.0.1:{closed_port()}/v1", retries=0)
        code, out, err = _run(_judge(tmp_path, toml), capsys)
    else:
        with BadModelServer(mode) as server:
            toml = _toml(tmp_path, server.base_url, retries=1)
            code, out, err = _run(_judge(tmp_path, toml), capsys)
    assert code == 1, out + err
    assert "failed model calls" in err and "q1/d1" in err  # the report names them
    assert "items: 3, scored 0" in out


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["claims", "answers", "generate", "matrix"])
def test_every_model_command_exits_1_when_calls_fail(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with BadModelServer("status:500") as server:
        toml = _toml(tmp_path, server.base_url, retries=0)
        common = ["--model", "m", "--config", toml, "--no-cache"]
        argv = {
            "claims": ["judge", "claims", DATA / "cases.jsonl", "--corpus", DATA / "docs.jsonl",
                       "-o", tmp_path / "c.jsonl", *common],
            "answers": ["judge", "answers", DATA / "cases.jsonl", *common],
            "generate": ["generate", "queries", "--corpus", DATA / "docs.jsonl", "-n", "2",
                         "-o", tmp_path / "q.jsonl", "--model", "m", "--config", toml,
                         "--cache-dir", tmp_path / "c"],
            "matrix": ["matrix", _matrix(tmp_path, server.base_url, 'model = "m"\nretries = 0'),
                       "--no-cache", "--no-record", "-f", "json"],
        }[command]  # fmt: skip
        code, out, err = _run(argv, capsys)
    assert code == 1, out + err
    assert "failed model calls" in err and "HTTP 500" in err


def test_max_failed_accepts_some_failures(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = _toml(tmp_path, stub.base_url, retries=0)
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        '{"query_id": "q1", "query": "monthly unemployment", "doc_id": "d1"}\n'
        '{"query_id": "q2", "query": "ERROR500 boom", "doc_id": "d2"}\n'
    )
    argv = ["judge", "llm", pool, "--corpus", DATA / "docs.jsonl", "--model", "m",
            "--config", toml, "-o", tmp_path / "l.jsonl", "--no-cache"]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 1 and "1 failed model calls (none allowed" in err and "q2/d2" in err
    code, _, err = _run([*argv, "--max-failed", "1"], capsys)
    assert code == 0, err


@pytest.mark.parametrize("scheme", ["file:///etc/passwd", "ftp://127.0.0.1/v1", "gopher://x"])
def test_non_http_base_urls_are_refused_when_read(
    scheme: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = _toml(tmp_path, scheme)
    code, _, err = _run(_judge(tmp_path, toml), capsys)
    assert code == 2
    assert f"{toml}:2: [models.m] base_url: must be an http:// or https:// URL" in err
    matrix = _matrix(tmp_path, scheme, 'model = "m"')
    code, _, err = _run(["matrix", matrix, "--no-record"], capsys)
    assert code == 2 and "[models.m] base_url" in err and "matrix.toml" in err


# ------------------------------------------------------------------ budgets and numbers
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1"])
def test_max_cost_must_be_finite_and_not_negative(
    value: str, stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = _toml(tmp_path, stub.base_url)
    before = len(stub.state.requests)
    code, _, err = _run([*_judge(tmp_path, toml), "--max-cost", value], capsys)
    assert code == 2 and "--max-cost must be a finite number" in err
    assert len(stub.state.requests) == before  # refused before any call
    matrix = _matrix(tmp_path, stub.base_url, 'model = "m"', f"max_cost = {value}")
    code, _, err = _run(["matrix", matrix, "--no-record"], capsys)
    assert code == 2 and "[matrix] max_cost" in err and "allowed keys" in err


@pytest.mark.parametrize(
    ("setting", "expect"),
    [
        ("timeout = inf", r"\[models\.m\] timeout: must be a finite number, got inf"),
        ("timeout = 0", r"timeout: must be greater than 0"),
        ("retries = 1000000000", r"retries: must be less than or equal to 10"),
        ("retries = true", r"retries: must be a number, not true or false"),
        ('max_tokens = "lots"', r"max_tokens: must be a number, got 'lots'"),
        ("input_price = nan", r"input_price: must be a finite number"),
        ("max_response_bytes = 0", r"max_response_bytes: must be greater than or equal to 1"),
        ("temprature = 1", r"temprature: unknown key; did you mean temperature\?"),
        ("headers = 3", r"headers: must be a valid dictionary"),
    ],
)
def test_model_settings_are_checked_when_read(
    setting: str, expect: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = tmp_path / "assay.toml"
    toml.write_text(f'[models.m]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n{setting}\n')
    code, _, err = _run(_judge(tmp_path, toml), capsys)
    assert code == 2
    assert re.search(expect, err), err
    assert str(toml) in err
    assert "allowed keys: api_key, base_url, concurrency, headers" in err


@pytest.mark.timeout(60)
def test_a_billion_repeats_is_refused_not_materialised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = _matrix(tmp_path, "http://127.0.0.1:9/v1", 'model = "m"')
    matrix.write_text(matrix.read_text().replace("repeats = 1", "repeats = 1000000000"))
    code, _, err = _run(["matrix", matrix, "--no-record"], capsys)
    assert code == 2
    assert "[matrix] repeats: must be less than or equal to 1000" in err


def test_matrix_tasks_are_taken_lazily() -> None:
    """The matrix and the graders hand tasks to their threads from a generator."""
    from assay.providers.pool import for_each

    taken = []

    def tasks() -> Iterator[int]:
        for i in range(10**9):
            taken.append(i)
            yield i

    def work(i: int) -> None:
        if i >= 50:
            stop.set()

    import threading

    stop = threading.Event()
    for_each(tasks(), work, workers=4, stop=stop)
    assert 50 < len(taken) < 100  # stopped near the 50th task; never the billion


@pytest.mark.parametrize("value", ["0", "101"])
def test_samples_are_bounded(
    value: str, stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = _toml(tmp_path, stub.base_url)
    code, _, err = _run([*_judge(tmp_path, toml), "--samples", value], capsys)
    assert code == 2 and "--samples must be a whole number from 1 to 100" in err


@pytest.mark.timeout(60)
def test_a_dripping_server_cannot_hold_a_matrix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three cases, each call cut off at timeout = 2: the matrix ends, exit 1."""
    with BadModelServer("drip", pause=0.5) as server:
        matrix = _matrix(tmp_path, server.base_url, 'model = "m"\ntimeout = 2\nconcurrency = 3')
        start = time.monotonic()
        code, _out, err = _run(
            ["matrix", matrix, "--no-cache", "--no-record", "-f", "json"], capsys
        )
        took = time.monotonic() - start
        requests = server.requests
    assert code == 1, err
    assert "3 failed model calls" in err and requests == 3
    assert took < 15


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["judge", "matrix"])
def test_calls_stop_after_too_many_failures_in_a_row(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dead endpoint is asked max_consecutive_failures times, not once per item."""
    with BadModelServer("status:500") as server:
        settings = "retries = 0\nconcurrency = 1\nmax_consecutive_failures = 2"
        if command == "judge":
            toml = _toml(tmp_path, server.base_url)
            toml.write_text(toml.read_text() + settings + "\n")
            pool = tmp_path / "many.jsonl"
            pool.write_text(
                "".join(
                    json.dumps({"query_id": f"q{i}", "query": "monthly rate", "doc_id": "d1"})
                    + "\n"
                    for i in range(40)
                )
            )
            argv = ["judge", "llm", pool, "--corpus", DATA / "docs.jsonl", "--model", "m",
                    "--config", toml, "-o", tmp_path / "l.jsonl", "--no-cache"]  # fmt: skip
        else:
            matrix = _matrix(tmp_path, server.base_url, f'model = "m"\n{settings}')
            matrix.write_text(matrix.read_text().replace("repeats = 1", "repeats = 10"))
            argv = ["matrix", matrix, "--no-cache", "--no-record", "-f", "json"]
        code, out, err = _run(argv, capsys)
        requests = server.requests
    assert code == 1, err
    assert requests == 2
    assert "2 consecutive failures" in out + err
