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
    ("tag separator defined once", r"TAG_SEPARATOR\s*=", {"core/tags.py"}),
    ("tags split only by the tag helper", r"\.split\((TAG_SEPARATOR|\";\"|';')", {"core/tags.py"}),
    # http.py parses HTTP responses of systems under test, not files; cache.py's
    # json.loads(json.dumps(...)) normalises a key, it reads nothing
    (
        "JSON of files parsed by textio",
        r"json\.loads\((?!json\.dumps)",
        {"io/textio.py", "systems/http.py", "io/safejson.py"},
    ),
    ("JSON documents walked by textio", r"raw_decode\(", {"io/textio.py"}),
    (
        "one JSON object check per line",
        r"must be a JSON object, got|expected a JSON object",
        {"io/textio.py", "judgments/_records.py"},
    ),
    (
        "undecodable bytes reported alike",
        r"not UTF-8 at column|undecodable bytes at",
        {"io/textio.py"},
    ),
    (
        "the BOM dropped in one place",
        r"\\xef\\xbb\\xbf|\\ufeff|utf-8-sig",
        {"io/textio.py", "results/models.py", "report/render.py", "runs/sidecar.py"},
    ),
    ("run rules: duplicate doc", r"duplicate doc_id|returned twice", {"runs/checks.py"}),
    ("run rules: all or none scored", r"some results have a score", {"runs/checks.py"}),
    ("run rules: finite scores", r"score of \{", {"runs/checks.py"}),
    ("CSV read in one place", r"csv\.(reader|DictReader)\(", {"io/textio.py"}),
    ("field counts reported alike", r"fields where the header has", set()),
    (
        "tie order outside metrics",
        r"lexsort\(\((-s, |-inv|-dcodes|-\w*score)",
        {"runs/order.py", "metrics/engine.py"},
    ),
    ("format suffix tables", r"\"\.ndjson\"", {"io/formats.py"}),
    ("format sniffing", r"startswith\(b?\"[\[{]\"\)", {"io/formats.py"}),
    ("corpus ids read once", r"def \w*corpus_ids\w*\(", {"corpora/ids.py"}),
    (
        "policy values",
        r"\(\"zero\", \"skip\"\)|\(\"score\", \"given\"\)|\[\"zero\", \"skip\"\]",
        {"core/policies.py", "metrics/engine.py"},
    ),
    ("policy sentences", r"trec_eval -c\)\"", {"core/policies.py"}),
    (
        "no import fallbacks for our own modules",
        r"except (ImportError|ModuleNotFoundError)[^\n]*\n"
        r"\s+(from assay|import assay|return \{\}|run_system)",
        set(),
    ),
    ("test helpers live in tests/", r"def synthetic_result\(", set()),
    # issue 22, item 4: one verdict, one content version, one CSV writer, one
    # Markdown table, one wording per parameter bound
    ("verdict decided once", r"(?m)^def verdict\(|TIE_TOLERANCE\s*=", {"stats/verdict.py"}),
    ("verdict words defined once", r"\"no detectable difference\"", {"stats/verdict.py"}),
    ("renderers compare verdict members", r"verdict\s*[!=]=\s*[\"']|verdict\.split", set()),
    (
        "content versions written once",
        r"[\"']sha256:[\"']\s*\+|f[\"']sha256:|hexdigest\(\)\[:16\]",
        {"core/hashing.py"},
    ),
    ("CSV written once", r"csv\.(writer|DictWriter)\(", {"io/csvout.py"}),
    (
        "CSV cells neutralised once",
        r"def csv_cell\(|\(\"=\", \"\+\", \"-\", \"@\"",
        {"io/csvout.py"},
    ),
    (
        "Markdown table rows built once",
        r"[\"']\|---|[\"']\| [\"']\s*\+|f[\"']\| ",
        {"report/table.py"},
    ),
    ("Markdown cells escaped once", r"replace\(\"\|\", ", {"report/escape.py"}),
    (
        "parameter bounds worded once",
        r"must be (at least 1|a positive integer|>= ?1\b|a whole number >= )",
        {"core/bounds.py"},
    ),
    # issue 36, item 4: one hash helper for cache keys, one bound per parameter, one
    # wording of config-file faults
    ("cache keys hashed once", r"hashlib\.(sha\d+|blake2\w|md5|new)\(", {"core/hashing.py"}),
    # (retry.py's jitter is a closed fraction [0, 1], not a level)
    (
        "levels bounded once",
        r"<\s*alpha\s*<|between 0 and (1|0\.5)",
        {"core/bounds.py", "core/retry.py"},
    ),
    ("one MAX_RETRIES", r"MAX_RETRIES\s*=", {"core/limits.py"}),
    (
        "config faults worded once",
        r"must be tables|must be a table[;:]|Input should be\", \"must be",
        {"io/config_errors.py"},
    ),
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
        ("core/tags.py", "def split_tags("),
        ("runs/checks.py", "class RankingCheck"),
        ("runs/order.py", "def trec_order("),
        ("io/textio.py", "def parse_json("),
        ("io/formats.py", "def detect_format("),
        ("corpora/ids.py", "def read_corpus_ids("),
        ("core/policies.py", "def check_policies("),
        ("io/textio.py", "def csv_table("),
        ("stats/verdict.py", "class Verdict(StrEnum)"),
        ("core/hashing.py", "def content_version("),
        ("io/csvout.py", "def csv_text("),
        ("report/table.py", "def markdown_rows("),
        ("core/bounds.py", "def at_least("),
    ]:
        assert needle in sources[name], (name, needle)
    assert not (SRC / "stats" / "synthetic.py").exists()


def test_atomic_writes_live_in_one_place() -> None:
    found = {name for name, text in _sources().items() if "os.replace(" in text}
    assert len(found) <= 1, f"os.replace in {sorted(found)}"


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ('=HYPERLINK("http://x")', False),
        ("+1+cmd", False),
        ("-2+3", False),
        ("@SUM(A1)", False),
        ("\tTAB", False),
        ("\r1", False),
        ("\t1", False),
        ("-inf", False),
        ("-0.25", True),
        ("-1e-05", True),
        ("+3", True),
        ("plain", True),
        (-0.5, True),
        (3, True),
    ],
)
def test_csv_cells_neutralised_but_numbers_kept(value: object, kept: bool) -> None:
    """OWASP's rule for text cells; numbers (and text that is a plain number) stay numeric."""
    from assay.io.csvout import csv_cell

    assert csv_cell(value) == (value if kept else "'" + str(value))


def test_csv_text_round_trips_through_the_csv_reader() -> None:
    import csv
    import io

    from assay.io.csvout import csv_text

    text = csv_text(["id", "v"], [["=cmd()", -0.5], ["a,b\nc", None]])
    assert list(csv.reader(io.StringIO(text))) == [
        ["id", "v"],
        ["'=cmd()", "-0.5"],
        ["a,b\nc", ""],
    ]


def test_markdown_rows_escape_pipes_backslashes_and_newlines() -> None:
    from assay.report.table import markdown_rows

    lines = markdown_rows(["a|b", "n"], [["x\\|y\nz", 3]], right=[1])
    assert lines == ["| a\\|b | n |", "|---|---:|", "| x\\\\\\|y z | 3 |"]
    assert all(line.count("\n") == 0 for line in lines)


def test_verdict_is_one_enum_with_a_tie_tolerance() -> None:
    from assay.stats.verdict import TIE_TOLERANCE, Verdict, verdict

    assert verdict(0.1, 0.01, 0.05) is Verdict.BETTER
    assert verdict(-0.1, 0.01, 0.05) is Verdict.WORSE
    assert verdict(TIE_TOLERANCE / 2, 0.0, 0.05) is Verdict.NO_DIFFERENCE
    assert verdict(0.1, 0.05, 0.05) is Verdict.NO_DIFFERENCE
    assert Verdict("no detectable difference") is Verdict.NO_DIFFERENCE


def test_content_version_is_stable() -> None:
    import hashlib
    import json

    from assay.core.hashing import ContentHash, content_version

    cfg = {"b": 1, "a": [1, "x"]}
    blob = json.dumps(cfg, sort_keys=True, separators=(",", ":")).encode()
    assert content_version(cfg) == "sha256:" + hashlib.sha256(blob).hexdigest()[:16]
    assert content_version({"a": [1, "x"], "b": 1}) == content_version(cfg)
    h = ContentHash()
    h.update("ab")
    h.update(b"c")
    assert h.version() == content_version(b"abc") == content_version("abc")


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "3", None])
def test_bounds_refuse_and_name_the_parameter(bad: object) -> None:
    from assay.cli.app import flags
    from assay.core.bounds import at_least
    from assay.core.errors import UsageError

    with pytest.raises(UsageError) as info:
        at_least("k", bad)
    assert info.value.parameter == "k"
    assert str(info.value).startswith("`k` must be a whole number >= 1, got ")
    assert flags(str(info.value)).startswith("-k must be a whole number >= 1")
