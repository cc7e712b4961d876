"""Review of model grades: blind or shown, accept or override with a reason, the reviewed file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _server import CHROMIUM, LAUNCH_ARGS, Server, free_port

from assay.core.errors import InputError, UsageError
from assay.judging.review import read_review
from assay.judging.serve import prepare

HX = {"HX-Request": "true"}
ITEMS = [
    {
        "query_id": "q1",
        "query": "tallest mountain",
        "doc_id": "p1",
        "model_grade": 3,
        "passage": "Everest is the highest mountain above sea level.",
        "language": "en",
    },
    {
        "query_id": "q1",
        "query": "tallest mountain",
        "doc_id": "p2",
        "model_grade": 2,
        "passage": "K2 is the second highest.",
    },
    {
        "query_id": "q2",
        "query": "largest ocean",
        "doc_id": "p3",
        "grade": 0,
        "passage": "The Pacific is the largest ocean.",
        "query_class": "fact",
    },
]


def _review(tmp_path: Path) -> Path:
    path = tmp_path / "review.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in ITEMS))
    return path


def _post(c, html: str, value: str, reason: str = ""):
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    pair = re.search(r'name="pair" value="(\d+)"', html).group(1)
    data = {"csrf": csrf, "pair": pair, "value": value, "reason": reason}
    return c.post("/act", data=data, headers=HX).text


def _export(tmp_path: Path, store: str) -> list[dict]:
    out = tmp_path / f"reviewed-{store}.jsonl"
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "export"]
    cmd += ["--store", str(tmp_path / store), "-o", str(out), "--format", "review"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in out.read_text().splitlines()]


def test_shown_review_accept_or_override_with_reason(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    app, links = prepare(
        None,
        str(tmp_path / "shown.db"),
        assessors=["rita"],
        review=_review(tmp_path),
        show_model_grades=True,
        base_url="http://testserver",
    )
    c = TestClient(app)
    html = c.get(links["rita"].removeprefix("http://testserver")).text
    assert 'id="model-grade">3<' in html and "Everest" in html
    html = _post(c, html, "3")  # accept
    assert 'id="model-grade">2<' in html
    refused = _post(c, html, "0")  # an override without a reason is refused ...
    assert "type a reason first" in refused and 'id="model-grade">2<' in refused
    html = _post(c, refused, "0", "K2 is not the tallest")  # ... and taken with one
    html = _post(c, html, "u")
    assert 'id="all-done"' in html
    lines = _export(tmp_path, "shown.db")
    got = [(x["doc_id"], x["reviewer_grade"], x["review"], x["reason"]) for x in lines]
    assert got == [
        ("p1", 3, "accepted", ""),
        ("p2", 0, "overridden", "K2 is not the tallest"),
        ("p3", None, "unrateable", ""),
    ]
    assert lines[0]["model_grade"] == 3 and lines[0]["reviewer"] == "rita"
    with pytest.raises(UsageError, match="shown review"):
        prepare(None, str(tmp_path / "shown.db"), assessors=["rita"], review=_review(tmp_path))


def test_blind_review_hides_the_model_grade(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    app, links = prepare(
        None,
        str(tmp_path / "blind.db"),
        assessors=["rita"],
        review=_review(tmp_path),
        base_url="http://testserver",
    )
    c = TestClient(app)
    html = c.get(links["rita"].removeprefix("http://testserver")).text
    assert "Blind review" in html and "model-grade" not in html and 'data-key="a"' not in html
    assert '"model_grade"' not in html and "Model grade" not in html
    for value in ("1", "2", "0"):
        html = _post(c, html, value)
    lines = _export(tmp_path, "blind.db")
    assert [(x["reviewer_grade"], x["review"]) for x in lines] == [
        (1, "blind"),
        (2, "blind"),
        (0, "blind"),
    ]


def test_review_file_problems_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_id": "d1"}\n{"query_id": "q1", "model_grade": 1}\n'
        '{"query_id": "q2", "doc_id": "d2", "model_grade": "high"}\n'
    )
    with pytest.raises(InputError) as info:
        read_review(path)
    text = str(info.value)
    assert "r.jsonl:2: [doc_id]" in text and "r.jsonl:3: [model_grade]" in text


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed")
def test_review_with_the_keyboard_in_chromium(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    args = ["--review", str(_review(tmp_path)), "--store", str(tmp_path / "k.db")]
    server = Server(
        [*args, "--assessors", "rita", "--show-model-grades"], tmp_path, free_port()
    ).start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            page = browser.new_page()
            page.goto(server.links["rita"])
            page.keyboard.press("a")  # accept 3
            page.wait_for_selector("#ack")
            assert page.inner_text("#model-grade") == "2"
            page.fill("#reason", "second, not first")
            page.keyboard.press("Escape")  # leave the box; the keys grade again
            page.keyboard.press("1")
            page.wait_for_function(
                "() => document.querySelector('#model-grade')?.innerText === '0'", timeout=15000
            )
            browser.close()
    finally:
        server.kill()
    lines = _export(tmp_path, "k.db")
    assert [(x["reviewer_grade"], x["review"], x["reason"]) for x in lines] == [
        (3, "accepted", ""),
        (1, "overridden", "second, not first"),
    ]
