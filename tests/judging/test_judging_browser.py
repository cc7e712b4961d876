"""Two assessors grade in Chromium with the keyboard; the server is SIGKILLed and restarted.

Playwright drives Debian's Chromium (never a downloaded browser). The export
must hold exactly what was pressed, net of undo, and a hostile document must
run no script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _server import CHROMIUM, LAUNCH_ARGS, Server, free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="headless Chromium is not installed at /usr/bin/chromium "
        "(.ci/run installs it; locally: apt-get install -y chromium)",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

HOSTILE = (
    '<script>window.pwned = "script"</script>'
    '<img src="x" onerror="window.pwned = \'onerror\'; alert(1)">'
    '<a href="javascript:alert(2)" onmouseover="window.pwned = \'hover\'">hover me</a>'
)
POOL = [
    ("q1", "what does a hostile page do", "d1", {"title": "Hostile", "text": HOSTILE}),
    ("q1", "what does a hostile page do", "d2", {"title": "Plain", "text": "A calm page."}),
    ("q2", "boiling point of water", "d3", {"text": "Water boils at 100 C at sea level."}),
    ("q2", "boiling point of water", "d4", {"text": "Ice melts at 0 C."}),
]


def _write_pool(path: Path) -> None:
    lines = []
    for qid, query, doc, fields in POOL:
        line = {
            "query_id": qid,
            "query": query,
            "doc_id": doc,
            "runs": [{"run": "secret-run-name", "rank": 7}],
            "notes": {"language": "en", "query_class": "factoid", "intent": "learn"},
            "document": fields,
        }
        lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n")


def _ack(page) -> str:
    return page.eval_on_selector(
        "#card", "c => (c.querySelector('#ack') || {dataset: {}}).dataset.event || ''"
    )


def _press(page, key: str) -> None:
    """Press ``key`` and wait until the server acknowledged it (a new event id shown)."""
    before = _ack(page)
    page.keyboard.press(key)
    _wait_ack(page, before)


def _wait_ack(page, before: str) -> None:
    page.wait_for_function(
        "b => { const a = document.querySelector('#ack'); return a && a.dataset.event !== b }",
        arg=before,
        timeout=15000,
    )


def _doc(page) -> str:
    return page.get_attribute("#document", "data-doc-id") or ""


def test_two_assessors_keyboard_kill_restart_export(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    _write_pool(pool)
    (tmp_path / "GUIDE.md").write_text("Grade the document against the query.\n")
    args = [str(pool), "--store", str(tmp_path / "judging.db"), "--assessors", "alice,bob"]
    args += ["--overlap", "2", "--guidelines", str(tmp_path / "GUIDE.md")]
    server = Server(args, tmp_path, free_port()).start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                _scenario(browser, server, tmp_path)
            finally:
                browser.close()
    finally:
        server.kill()


def _scenario(browser, server: Server, tmp_path: Path) -> None:
    dialogs: list[str] = []
    pages = {}
    for name in ("alice", "bob"):
        ctx = browser.new_context()
        page = ctx.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server.links[name])
        assert page.url == server.base + "/"  # the token left the address bar
        pages[name] = page
    alice, bob = pages["alice"], pages["bob"]
    # the hostile document is shown as text and runs nothing
    assert _doc(alice) == "d1"
    assert "<script>window.pwned" in alice.inner_text("#document")
    alice.hover("#document")
    assert alice.evaluate("window.pwned") is None and not dialogs
    html = alice.content()
    assert "secret-run-name" not in html and "rank" not in alice.inner_text("#card")
    assert "intent" in alice.inner_text("#card") and "Grade the document" in html
    # both grade the same pair at the same moment
    a0, b0 = _ack(alice), _ack(bob)
    alice.keyboard.press("2")
    bob.keyboard.press("3")
    _wait_ack(alice, a0)
    _wait_ack(bob, b0)
    assert "3" not in alice.inner_text("#current")  # alice never sees bob's grade
    assert _doc(alice) == "d2"
    _press(alice, "l")  # d2 later
    assert _doc(alice) == "d3"
    _press(alice, "1")  # d3 = 1 ...
    alice.reload()
    assert _doc(alice) == "d4"
    _press(alice, "z")  # ... undone: d3 comes back ungraded
    assert _doc(alice) == "d3" and alice.inner_text("#current") == "none yet"
    _press(alice, "3")
    _press(bob, "1")  # bob: d2 = 1
    # SIGKILL with acknowledged grades, then restart on the same store
    server.kill()
    server.start()
    for page in (alice, bob):
        page.reload()
    assert _doc(alice) == "d4" and _doc(bob) == "d3"
    assert alice.get_attribute("#progress", "data-done") == "2"
    assert alice.get_attribute("#progress", "data-later") == "1"
    _press(alice, "0")  # d4
    assert _doc(alice) == "d2"  # the one put off comes back
    _press(alice, "1")
    assert alice.locator("#all-done").count() == 1
    bob.keyboard.press("3")  # d3, and at once (no wait for the answer) ...
    bob.keyboard.press("u")  # ... d4 unrateable: the key waits for d4's card
    bob.wait_for_selector("#all-done", timeout=15000)
    assert not dialogs and alice.evaluate("window.pwned") is None
    _check_export(tmp_path)


def _check_export(tmp_path: Path) -> None:
    out = tmp_path / "judgments.jsonl"
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "export"]
    cmd += ["--store", str(tmp_path / "judging.db"), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = {x["query_id"]: x for x in map(json.loads, out.read_text().splitlines())}
    pressed = {
        ("q1", "d1"): {"alice": 2, "bob": 3},
        ("q1", "d2"): {"alice": 1, "bob": 1},
        ("q2", "d3"): {"alice": 3, "bob": 3},
        ("q2", "d4"): {"alice": 0},
    }
    got = {
        (qid, doc): {g["assessor"]: g["grade"] for g in a["grades"]}
        for qid, line in lines.items()
        for doc, a in line["assessments"].items()
    }
    # d1 is a tie (2 vs 3): left out until adjudicated
    assert got == {k: v for k, v in pressed.items() if k != ("q1", "d1")}
    assert lines["q1"]["relevant"] == {"d2": 1}
    assert lines["q2"]["relevant"] == {"d3": 3, "d4": 0}
    assert lines["q2"]["assessments"]["d4"]["unrateable"] == ["bob"]
    assert {line["source"] for line in lines.values()} == {"human"}
    assert "1 tied pairs left out" in proc.stderr
    from assay import load_judgments

    assert load_judgments(out).qrels_dict() == {"q1": {"d2": 1}, "q2": {"d3": 3, "d4": 0}}
