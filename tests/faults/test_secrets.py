"""Secrets are never written: every artifact of a run against an echoing server is grepped.

The server answers 500 with the request line, headers and body it received, so
an unredacted error message would carry the ``${SECRET_TOKEN}`` value and the
literal credentials of the configuration into sidecars, results, the store,
the cache, reports, the terminal and ``assay serve`` answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stub_server import stub_server

from assay.cli.app import main
from assay.core.redact import REDACTED, redact, redact_text, register_secret

SECRET = "s3cr3t-token-FROM-env-81723"
LITERALS = ("literal-pass-9876", "literal-body-tok-55", "literal-hdr-key-77")

pytestmark = pytest.mark.timeout(120)


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


def _every_byte(folder: Path) -> str:
    """Every file assay wrote (the user's own assay.toml holds the literals: left out)."""
    parts = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "assay.toml":
            parts.append(f"== {p}\n" + p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_no_artifact_holds_a_secret(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SECRET_TOKEN", SECRET)
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{tmp_path / 'store' / 'history.db'}")
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    qrels = work / "q.jsonl"
    qrels.write_text(
        "".join(
            json.dumps(
                {
                    "query_id": f"q{i}",
                    "query": f"{'ok' if i % 2 else 't'} {i}",
                    "relevant": {"d": 1},
                }
            )
            + "\n"
            for i in range(4)
        )
    )
    with stub_server() as (base, stub):
        toml = work / "assay.toml"
        toml.write_text(
            "[systems.hostile]\n"
            'type = "http"\n'
            'method = "POST"\n'
            f'url = "{base}/echo500?q={{query}}&api_key=${{SECRET_TOKEN}}'
            f'&password={LITERALS[0]}"\n'
            f'body = {{ q = "{{query}}", token = "{LITERALS[1]}", auth = "${{SECRET_TOKEN}}" }}\n'
            f'headers = {{ X-Api-Key = "${{SECRET_TOKEN}}", '
            f'Authorization = "Bearer {LITERALS[2]}" }}\n'
            "retries = 0\n"
            "backoff = 0.01\n",
            encoding="utf-8",
        )
        common = ["--config", str(toml), "--max-failed", "99"]
        run = work / "r.trec"
        assert (
            _run(
                [
                    "run",
                    str(qrels),
                    "-s",
                    "hostile",
                    "-o",
                    str(run),
                    "--max-consecutive-failures",
                    "0",
                    *common,
                ]
            )
            == 0
        )
        assert (
            _run(
                [
                    "evaluate",
                    str(qrels),
                    str(run),
                    "-o",
                    str(work / "res.json"),
                    "--max-failed",
                    "99",
                ]
            )
            == 0
        )
        assert _run(
            [
                "evaluate",
                str(qrels),
                "-s",
                "hostile",
                "-f",
                "markdown",
                "-o",
                str(work / "live.md"),
                *common,
            ]
        ) in (0, 1)
        assert _run(["report", str(work / "res.json")]) == 0
        _run(["history"])
        from fastapi.testclient import TestClient

        from assay.systems.config import build_system
        from assay.systems.server import create_app

        system = build_system("hostile", config_path=toml)
        answer = TestClient(create_app(system)).get("/search", params={"q": "x"})
        assert answer.status_code == 502
        served = answer.text
    # the server really was sent the secret: the test would catch a leak
    assert any(SECRET in json.dumps(h) for h in stub.headers)
    printed = capsys.readouterr()
    blob = _every_byte(tmp_path) + printed.out + printed.err + served
    assert "HTTP 500" in blob  # the error bodies were stored, redacted
    for needle in (SECRET, *LITERALS):
        at = blob.find(needle)
        assert at < 0, f"{needle} leaked: {blob[max(0, at - 300) : at + 50]}"
    assert REDACTED in blob


def test_redaction_rules() -> None:
    register_secret("value-from-env-123")
    text = redact_text(
        'GET /s?api_key=abc&q=ok X-Api-Key: k1 {"password": "p w"} token=xyz '
        "Authorization: Bearer zz value-from-env-123 key=${KEEP}"
    )
    for leak in ("abc", "k1", "p w", "xyz", "zz", "value-from-env-123"):
        assert leak not in text
    assert "q=ok" in text and "${KEEP}" in text
    assert redact({"headers": {"X-Token": "t", "Accept": "json"}, "n": 3}) == {
        "headers": {"X-Token": REDACTED, "Accept": "json"},
        "n": 3,
    }


def test_settings_that_only_contain_a_credential_word_are_kept() -> None:
    """``token_pattern``, ``max_tokens`` and ``author`` are settings, not credentials."""
    from assay.core.redact import redact, redact_text

    config = {"token_pattern": r"(?u)\w+", "max_tokens": 256, "author": "ops"}
    assert redact(config) == config
    secret = {"access_token": "abc123", "X-Api-Key": "k-1", "client_secret": "s3cr3t"}
    assert set(redact(secret).values()) == {"<redacted>"}
    text = redact_text("q?api_key=abcd&token_pattern=w Authorization: Bearer qwerty")
    assert "abcd" not in text and "qwerty" not in text and "token_pattern=w" in text
