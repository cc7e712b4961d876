"""One rule, one place: the telltales of each rule appear in ``src/`` only where it lives.

Each row names a rule, a pattern that a copy of it would contain, and the
files allowed to hold that pattern. A new copy of a rule fails this test; the
fix is to call the one function instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"

RULES: list[tuple[str, str, set[str]]] = [
    ("tag separator defined once", r"TAG_SEPARATOR\s*=", {"tags.py"}),
    ("tags split only by the tag helper", r"\.split\((TAG_SEPARATOR|\";\"|';')", {"tags.py"}),
    # http.py parses HTTP responses of systems under test, not files; cache.py's
    # json.loads(json.dumps(...)) normalises a key, it reads nothing
    (
        "JSON of files parsed by textio",
        r"json\.loads\((?!json\.dumps)",
        {"textio.py", "systems/http.py", "safejson.py"},
    ),
    ("JSON documents walked by textio", r"raw_decode\(", {"textio.py"}),
    (
        "one JSON object check per line",
        r"must be a JSON object, got|expected a JSON object",
        {"textio.py", "judgments/_records.py"},
    ),
    (
        "undecodable bytes reported alike",
        r"not UTF-8 at column|undecodable bytes at",
        {"textio.py"},
    ),
    (
        "the BOM dropped in one place",
        r"\\xef\\xbb\\xbf|\\ufeff|utf-8-sig",
        {"textio.py", "results.py", "report/render.py", "runs/sidecar.py"},
    ),
    ("run rules: duplicate doc", r"duplicate doc_id|returned twice", {"runs/checks.py"}),
    ("run rules: all or none scored", r"some results have a score", {"runs/checks.py"}),
    ("run rules: finite scores", r"score of \{", {"runs/checks.py"}),
    ("CSV read in one place", r"csv\.(reader|DictReader)\(", {"textio.py"}),
    ("field counts reported alike", r"fields where the header has", set()),
    (
        "tie order outside metrics",
        r"lexsort\(\((-s, |-inv|-dcodes|-\w*score)",
        {"runs/order.py", "metrics/engine.py"},
    ),
    ("format suffix tables", r"\"\.ndjson\"", {"formats.py"}),
    ("format sniffing", r"startswith\(b?\"[\[{]\"\)", {"formats.py"}),
    ("corpus ids read once", r"def \w*corpus_ids\w*\(", {"corpora/ids.py"}),
    (
        "policy values",
        r"\(\"zero\", \"skip\"\)|\(\"score\", \"given\"\)|\[\"zero\", \"skip\"\]",
        {"policies.py", "metrics/engine.py"},
    ),
    ("policy sentences", r"trec_eval -c\)\"", {"policies.py"}),
    (
        "no import fallbacks for our own modules",
        r"except (ImportError|ModuleNotFoundError)[^\n]*\n"
        r"\s+(from assay|import assay|return \{\}|run_system)",
        set(),
    ),
    ("test helpers live in tests/", r"def synthetic_result\(", set()),
    (
        "plotly set up once (no cloud button, no logo link)",
        r"get_plotlyjs\(|include_plotlyjs|displaylogo",
        {"report/plotly_page.py"},
    ),
]


def _sources() -> dict[str, str]:
    return {p.relative_to(SRC).as_posix(): p.read_text("utf-8") for p in SRC.rglob("*.py")}


@pytest.mark.parametrize(("rule", "pattern", "allowed"), RULES, ids=[r[0] for r in RULES])
def test_rule_lives_in_one_place(rule: str, pattern: str, allowed: set[str]) -> None:
    found = {name for name, text in _sources().items() if re.search(pattern, text)}
    assert found <= allowed, f"{rule}: copies in {sorted(found - allowed)}"


def test_each_rule_is_defined() -> None:
    """The single places exist (a rename must update this test, not silence it)."""
    sources = _sources()
    for name, needle in [
        ("tags.py", "def split_tags("),
        ("runs/checks.py", "class RankingCheck"),
        ("runs/order.py", "def trec_order("),
        ("textio.py", "def parse_json("),
        ("formats.py", "def detect_format("),
        ("corpora/ids.py", "def read_corpus_ids("),
        ("policies.py", "def check_policies("),
        ("textio.py", "def csv_table("),
    ]:
        assert needle in sources[name], (name, needle)
    assert not (SRC / "stats" / "synthetic.py").exists()


def test_atomic_writes_live_in_one_place() -> None:
    found = {name for name, text in _sources().items() if "os.replace(" in text}
    assert len(found) <= 1, f"os.replace in {sorted(found)}"
