"""``tune`` on http and opensearch systems: a value in the request template is tuned, and
the server (a local stub whose ranking depends on that value) sees every set."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from _tuning import judgments

from assay.procedures.options import SourceOptions
from assay.procedures.tuning import TuneOptions, tune


def _find(body: Any, key: str) -> Any:
    """The first value of ``key`` at any depth of a JSON body."""
    if isinstance(body, dict):
        if key in body:
            return body[key]
        body = list(body.values())
    for item in body if isinstance(body, list) else []:
        found = _find(item, key)
        if found is not None:
            return found
    return None


def _question(body: Any) -> str:
    """The query text in a JSON body (the string starting "question")."""
    if isinstance(body, str):
        return body if body.startswith("question") else ""
    items = body.values() if isinstance(body, dict) else body if isinstance(body, list) else []
    return next((q for q in map(_question, items) if q), "")


def _ranking(text: str, boost: float) -> list[str]:
    """The relevant document of "question N" placed |boost - 2| * 3 places down."""
    n = int(text.split()[-1])
    others = [f"d{i}" for i in range(30) if i != n % 30]
    place = round(abs(boost - 2) * 3)
    return [*others[:place], f"d{n % 30}", *others[place:]]


@contextmanager
def _server() -> Iterator[tuple[str, list[float]]]:
    seen: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            boost = float(_find(body, "boost"))
            seen.append(boost)
            docs = _ranking(_question(body), boost)
            hits = [
                {"id": d, "_id": d, "score": 30.0 - i, "_score": 30.0 - i}
                for i, d in enumerate(docs)
            ]
            payload = json.dumps({"hits": hits if "/_search" not in self.path else {"hits": hits}})
            data = payload.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.mark.parametrize(
    ("table", "param"),
    [
        ('type = "http"\nmethod = "POST"\nbody = {{ q = "{{query}}", boost = 0 }}\n', "body.boost"),
        (
            'type = "opensearch"\nindex = "docs"\n'
            'query = {{ match = {{ text = {{ query = "{{query}}", boost = 0 }} }} }}\n',
            "query.match.text.boost",
        ),
    ],
    ids=["http", "opensearch"],
)
def test_a_template_value_is_tuned(tmp_path: Path, table: str, param: str) -> None:
    path = judgments(tmp_path, n=24)
    with _server() as (base, seen):
        config = tmp_path / "assay.toml"
        config.write_text(f'[systems.svc]\nurl = "{base}"\n' + table.format(), encoding="utf-8")
        options = TuneOptions(
            params=(f"{param}=0,1,2,3",), metrics=("RR",), folds=3, n_permutations=500
        )
        result = tune(
            path, options, SourceOptions(system="svc", config=config, no_cache=True), None
        )
    assert sorted(set(seen)) == [0, 1, 2, 3] and len(seen) == 5 * 24
    assert result.recommended.params == {param: 2}
    assert all(f.chosen == {param: 2} for f in result.folds)
    assert result.recommended.honest_score["RR"] == 1.0
