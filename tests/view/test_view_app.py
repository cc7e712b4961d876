"""``assay view`` without a browser: the JSON API, read-only routes, headers, provenance notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _viewdata import make
from fastapi.testclient import TestClient

from assay.view import make_app


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return make(tmp_path_factory.mktemp("viewapp"))


@pytest.fixture(scope="module")
def client(data: dict) -> TestClient:
    files = list(data["files"].values())
    app = make_app(files, store=data["store"], corpus=data["corpus"], id_field=data["id_field"])
    return TestClient(app)


def test_api_lists_every_result_newest_first(client: TestClient, data: dict) -> None:
    rows = client.get("/api/results").json()
    assert {r["id"] for r in rows} == {"f1", "f2", "f3", "s1", "s2", "s3", "s4", "s5"}
    dates = [r["created_at"] for r in rows]
    assert dates == sorted(dates, reverse=True)
    gates = {r["id"]: r["gate"] for r in rows}
    assert gates["s5"] == "failed" and gates["s4"] == "failed"  # the gate and its candidate
    one = client.get("/api/results/f1").json()
    assert one == json.loads(data["evaluation"].to_json())
    assert client.get("/api/results/nope").status_code == 404


def test_read_only_and_secured(client: TestClient) -> None:
    for path in ("/", "/api/results", "/r/f1"):
        assert client.post(path).status_code == 405
    response = client.get("/r/f1")
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["x-frame-options"] == "DENY"
    assert '<html lang="en">' in response.text and 'name="viewport"' in response.text
    assert "<script>" not in response.text  # no inline script for the CSP to refuse


def test_unknown_host_is_refused(data: dict) -> None:
    app = make_app([data["files"]["eval"]], allowed_hosts=["127.0.0.1"])
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400
    assert TestClient(app, base_url="http://127.0.0.1:8766").get("/").status_code == 200


def test_pool_link_lists_the_unjudged_documents(client: TestClient, data: dict) -> None:
    page = client.get("/r/f1/q/q02").text
    assert "/r/f1/q/q02/pool.jsonl" in page
    lines = [json.loads(x) for x in client.get("/r/f1/q/q02/pool.jsonl").text.splitlines()]
    from assay.judging.pool import read_pool

    path = Path(data["files"]["eval"]).parent / "pool.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    pairs = read_pool(str(path))  # the judging app reads it
    assert {p.doc_id for p in pairs} == {x["doc_id"] for x in lines}
    assert "ED_PRIMARY_NER_PCT" not in {x["doc_id"] for x in lines}  # judged: not pooled
    assert all(x["query_id"] == "q02" and x["document"]["text"] for x in lines)


def test_missing_run_file_is_said(tmp_path: Path, data: dict) -> None:
    result = data["evaluation"].model_copy(deep=True)
    result.run.path = str(tmp_path / "gone.trec")
    path = tmp_path / "r.json"
    path.write_text(result.to_json(), encoding="utf-8")
    page = TestClient(make_app([path])).get("/r/f1/q/q02").text
    assert "is not here, so the ranked list cannot be shown" in page


def test_without_corpus_documents_are_shown_by_id(data: dict) -> None:
    page = TestClient(make_app([data["files"]["eval"]])).get("/r/f1/q/q02").text
    assert "names no corpus" in page and "ED_PRIMARY_NER_PCT" in page


def test_cli_refuses_an_unreadable_result_file(tmp_path: Path, capsys) -> None:
    from assay.cli.app import main

    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for extra in ([], ["--port", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(["view", str(bad), *extra])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "--port must be between 1 and 65535" in err
    assert "Traceback" not in err


def test_history_draws_the_intervals_results_carry(client: TestClient, data: dict) -> None:
    """A comparison's Δ and its 95% interval, as the comparison holds them, on its point."""
    import re

    page = client.get("/history?").text
    specs = [
        json.loads(s)
        for s in re.findall(
            r'<script type="application/json" id="trend-\d+-spec">(.*?)</script>', page, re.S
        )
    ]
    c = data["comparison"].comparisons[0]
    bars = [
        (t["y"][i], t["error_y"]["array"][i], t["error_y"]["arrayminus"][i])
        for spec in specs
        if spec["layout"]["title"]["text"] == f"delta {c.metric}"
        for t in spec["data"]
        if t.get("error_y")
        for i in range(len(t["y"]))
        if t["customdata"][i] == "/r/s3"
    ]
    assert bars, "no interval drawn for the comparison"
    y, up, down = bars[0]
    assert y == pytest.approx(c.delta)
    assert y + up == pytest.approx(c.ci_high) and y - down == pytest.approx(c.ci_low)


def test_long_per_query_tables_are_capped_and_say_so(data: dict, monkeypatch) -> None:
    from assay.report.html import pages
    from assay.report.html.export import render_html

    monkeypatch.setattr(pages, "MAX_ROWS", 3)
    n = len(data["evaluation"].per_query_frame())
    page = render_html(data["evaluation"])
    assert f"Showing the first 3 of {n} queries" in page
    body = page.split('<table id="per-query"', 1)[1].split("</tbody>", 1)[0]
    assert body.count("<tr>") == 3 + 1  # the header row and three queries
