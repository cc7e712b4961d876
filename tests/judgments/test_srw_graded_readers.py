"""Search Relevance Workbench judgments / query sets and graded CSV: fingerprints and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.judgments import FORMATS, detect_format, load_judgments
from assay.judgments.graded_csv import parse_columns
from assay.judgments.srw import ESCI_NOTE


def _rows(js):
    return list(js.qrels.itertuples(index=False, name=None))


def _fingerprint(js):
    n = len(js)
    picks = [i for i in (0, 9, n - 1) if i < n]
    return [(js.queries.index[i], int(js.queries["line"].iloc[i])) for i in picks]


@pytest.fixture(scope="module")
def ubi(shared_data: Path) -> Path:
    return shared_data / "ubi_chorus"


def test_chorus_graded_csv_fingerprint(ubi: Path) -> None:
    p = ubi / "Chorus_Electronics_basic.csv"
    assert detect_format(p) == "graded-csv"
    js = load_judgments(p)
    assert (len(js), len(js.qrels)) == (2, 207)
    rows = _rows(js)
    assert (rows[0], rows[9], rows[-1]) == (
        ("notebook", "1325549", 1),
        ("notebook", "2274095", 1),
        ("laptop", "78538532", 3),
    )
    assert _fingerprint(js) == [("notebook", 2), ("laptop", 137)]
    assert js.summary()["judgments_per_grade"] == {1: 111, 3: 96}


def test_srw_llm_judgments_fingerprint(ubi: Path) -> None:
    js = load_judgments(ubi / "art_judgments.json")
    assert js.format == "srw" and (len(js), len(js.qrels)) == (27, 1080)
    rows = _rows(js)
    assert (rows[0], rows[9], rows[-1]) == (
        ("3_year_old_boy_birthday_gift", "B01BMSFF4Y", 1),
        ("3_year_old_boy_birthday_gift", "B07SKP87SC", 0),
        ("karaoke_microphone", "B07P7YQ9ZN", 1),
    )
    assert _fingerprint(js) == [
        ("3_year_old_boy_birthday_gift", 7),
        ("summer_dress_women_casual", 1492),
        ("karaoke_microphone", 4297),
    ]
    assert js.warnings == []  # ratings 0-3 are kept as they are


def test_srw_esci_judgments_fingerprint_and_scale(ubi: Path) -> None:
    js = load_judgments(ubi / "esci_us_judgments.json")
    assert (len(js), len(js.qrels)) == (150, 6678)
    rows = _rows(js)
    assert (rows[0], rows[9], rows[-1]) == (
        ("t_towels_kitchen", "B07NCQWCQS", 3),  # rating 100 (Exact)
        ("t_towels_kitchen", "B08JZ36B5B", 0),
        ("swissqlip_deep_carry_pocket_clip", "B018IN1OZ0", 0),
    )
    assert _fingerprint(js) == [
        ("t_towels_kitchen", 7),
        ("thin_leather_strap", 1532),
        ("swissqlip_deep_carry_pocket_clip", 27292),
    ]
    # an independent count of the raw ratings, mapped 0/1/10/100 -> 0/1/2/3
    raw = json.loads((ubi / "esci_us_judgments.json").read_text())
    counts: dict[int, int] = {}
    for q in raw["judgmentRatings"]:
        for r in q["ratings"]:
            g = {0: 0, 1: 1, 10: 2, 100: 3}[int(float(r["rating"]))]
            counts[g] = counts.get(g, 0) + 1
    assert js.summary()["judgments_per_grade"] == dict(sorted(counts.items()))
    assert js.warnings == [ESCI_NOTE]


@pytest.mark.parametrize(
    ("name", "n", "picks"),
    [
        (
            "art_queryset.json",
            11,
            [("laptop_stand", 6), ("alarm_clock", 15), ("karaoke_microphone", 16)],
        ),
        (
            "esci_us_queryset.json",
            150,
            [
                ("t_towels_kitchen", 6),
                ("thin_leather_strap", 15),
                ("swissqlip_deep_carry_pocket_clip", 157),
            ],
        ),
    ],
)
def test_srw_query_sets_fingerprint(ubi: Path, name: str, n: int, picks: list) -> None:
    js = load_judgments(ubi / name)
    assert js.format == "srw-queries"
    assert (len(js), len(js.qrels)) == (n, 0)
    assert _fingerprint(js) == picks
    assert len(js.no_answer_ids) == n  # unjudged: excluded from ranking metrics


def test_new_formats_are_named_formats() -> None:
    assert {"srw", "srw-queries", "graded-csv"} <= set(FORMATS)


def test_graded_csv_other_column_names(tmp_path: Path) -> None:
    p = tmp_path / "g.csv"
    p.write_text("search_term,sku,score,notes\nTV  Stand,a1,2,x\ntv stand,a2,0,y\nlamp,b1,1.0,\n")
    with pytest.raises(InputError) as info:
        load_judgments(p, "graded-csv")
    assert str(info.value.problems[0]).startswith(f"{p}:1: [doc_id] no doc_id column")
    js = load_judgments(p, "graded-csv", columns=parse_columns("doc_id=sku,grade=score"))
    assert js.query_ids == ["tv_stand", "lamp"]  # query text (an alias) normalised into the id
    assert js.relevant("tv_stand") == {"a1": 2, "a2": 0}
    assert js.relevant("lamp") == {"b1": 1}


def test_graded_csv_errors(tmp_path: Path) -> None:
    p = tmp_path / "g.csv"
    p.write_text("query_id,query,doc_id,grade\nq1,tv,d1,high\nq1,tv,d1,1\nq1,tv,d1,2\n")
    with pytest.raises(InputError) as info:
        load_judgments(p)
    assert [str(x) for x in info.value.problems] == [
        f"{p}:2: [grade] grade 'high' is not a whole number >= 0 (write 0, 1, 2 or 3)",
        f"{p}:4: [doc_id] duplicate judgment of doc 'd1' for query 'q1' (first seen on line 3) "
        "(keep one grade per document and query)",
    ]


def test_srw_errors_name_the_line(tmp_path: Path) -> None:
    p = tmp_path / "j.json"
    p.write_text(
        '{"judgmentRatings": [\n'
        ' {"query": "tv", "ratings": [\n'
        '   {"docId": "a", "rating": "2.5"},\n'
        '   {"docId": "b", "rating": "1"}]},\n'
        ' {"query": "TV", "ratings": []}]}\n'
    )
    with pytest.raises(InputError) as info:
        load_judgments(p)
    assert [str(x) for x in info.value.problems] == [
        f"{p}:3: [rating] rating '2.5' of doc 'a' is not a whole number >= 0 "
        "(ratings are grades like 0, 1, 2, 3 (or ESCI 0/1/10/100))",
        f"{p}:5: [query_id] duplicate query_id 'tv' (first seen on line 2) "
        "(give every query its own id, or merge the two entries)",
    ]


def test_new_formats_through_validate_cli(ubi: Path) -> None:
    import subprocess
    import sys

    for name in ("Chorus_Electronics_basic.csv", "esci_us_judgments.json"):
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                "from assay.cli import main; main()",
                "validate",
                str(ubi / name),
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)["reports"][0]
        assert report["kind"] == "judgments" and report["ok"]
