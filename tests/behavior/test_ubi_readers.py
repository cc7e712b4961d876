"""UBI readers: fingerprints on the shared Chorus files, the three layouts, and strict errors."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from assay.behavior.read import detect_layout, read_ubi
from assay.core.errors import InputError


@pytest.fixture(scope="module")
def ubi(shared_data: Path) -> Path:
    return shared_data / "ubi_chorus"


def test_bulk_ndjson_fingerprint(ubi: Path) -> None:
    log = read_ubi(ubi / "ubi_queries_events.ndjson")
    assert log.layouts == {str(ubi / "ubi_queries_events.ndjson"): "bulk"}
    assert (len(log.queries), len(log.events)) == (473, 3448)
    q0, q9, qn = log.queries[0], log.queries[9], log.queries[-1]
    assert (q0.line, q0.query_id, q0.user_query, q0.application, q0.hit_ids) == (
        2,
        "33198ee9-5912-453c-9173-3f92fd3cb1be",
        "futon frames full size without mattress",
        "esci_ubi_sample",
        None,
    )
    assert (q9.line, q9.user_query, q9.timestamp) == (20, "iphone xr", "2024-12-10T07:29:16.130Z")
    assert (qn.line, qn.user_query, qn.application, qn.hit_ids) == (3066, "gold", "Chorus", ())
    assert qn.query_response_id == "90f427f9-912d-4f53-898a-cdc8ca43dd97"
    e0, e9, en = log.events[0], log.events[9], log.events[-1]
    assert (e0.line, e0.action_name, e0.object_id, e0.position) == (
        402,
        "impression",
        "B07CVR21VN",
        0,
    )
    assert e0.session_id == "94cb50fb-c3af-4a69-91d9-cdd9e86d6297"
    assert (e9.line, e9.user_query, e9.object_id, e9.position) == (
        420,
        "portable charger",
        "B01N7OAH3I",
        4,
    )
    assert (en.line, en.application, en.object_id, en.position) == (
        7842,
        "Chorus",
        "B07J4WHNFC",
        18,
    )
    hits = [q.hit_ids for q in log.queries if q.hit_ids]
    assert len(hits) == 81 and max(len(h) for h in hits) == 20


def test_old_tsv_log_read_from_the_zip(ubi: Path) -> None:
    log = read_ubi(ubi / "log_events.zip")
    name = f"{ubi / 'log_events.zip'}:log_events_new.json"
    assert log.layouts == {name: "tsv"}
    assert (len(log.queries), len(log.events)) == (4130, 26828)
    q0, q9, qn = log.queries[0], log.queries[9], log.queries[-1]
    assert (q0.path, q0.line, q0.user_query, q0.application, q0.hit_ids) == (
        name,
        1,
        "handbag",
        "ubi-demo",  # from query_attributes in this older schema
        (),
    )
    assert (q9.line, q9.user_query) == (81, "sintetiza comercio electrónico inalámbrica")
    assert (qn.line, qn.query_id) == (30954, "56e2da88-5cb2-4af0-9865-4b1534769ee1")
    e0, e9, en = log.events[0], log.events[9], log.events[-1]
    assert (e0.line, e0.action_name, e0.position, e0.timestamp) == (
        2,
        "on_search",
        None,
        "1717527762025",
    )
    assert (e9.line, e9.action_name, e9.object_id, e9.position) == (
        12,
        "item_click",
        "3760170840499",
        10,
    )
    assert (en.line, en.action_name, en.object_id_field) == (
        30958,
        "global_click",
        "click_location",
    )
    # the older schema names the result list query_response_object_ids
    assert sum(1 for q in log.queries if q.hit_ids) == 859


def test_plain_jsonl_reads_the_same_records(ubi: Path, tmp_path: Path) -> None:
    lines = (ubi / "ubi_queries_events.ndjson").read_text(encoding="utf-8").splitlines()
    docs = {"ubi_queries": [], "ubi_events": []}
    for action, doc in zip(lines[::2], lines[1::2], strict=True):
        docs[json.loads(action)["index"]["_index"]].append(doc)
    (tmp_path / "ubi_queries.jsonl").write_text("\n".join(docs["ubi_queries"]) + "\n")
    (tmp_path / "ubi_events.jsonl").write_text("\n".join(docs["ubi_events"]) + "\n")
    mixed = tmp_path / "mixed.jsonl"  # no hint in the name: classified by keys
    mixed.write_text("\n".join(docs["ubi_events"][:5] + docs["ubi_queries"][:3]) + "\n")
    bulk = read_ubi(ubi / "ubi_queries_events.ndjson")
    plain = read_ubi([tmp_path / "ubi_queries.jsonl", tmp_path / "ubi_events.jsonl"])
    assert set(plain.layouts.values()) == {"jsonl"}
    strip = lambda r: {k: getattr(r, k) for k in r.__slots__ if k not in ("path", "line")}  # noqa: E731
    assert [strip(q) for q in plain.queries] == [strip(q) for q in bulk.queries]
    assert [strip(e) for e in plain.events] == [strip(e) for e in bulk.events]
    m = read_ubi(mixed)
    assert (len(m.events), len(m.queries)) == (5, 3)


def test_zip_of_jsonl_and_gzip(tmp_path: Path) -> None:
    import gzip

    event = json.dumps(
        {"action_name": "click", "query_id": "a", "event_attributes": {"position": {"ordinal": 1}}}
    )
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as z:
        z.writestr("ubi_events.jsonl", event + "\n")
        z.writestr("q.tsv", 'ubi_queries\t{"query_id": "a", "user_query": "tv"}\n')
    log = read_ubi(tmp_path / "x.zip")
    assert (len(log.queries), len(log.events)) == (1, 1)
    (tmp_path / "e.ndjson.gz").write_bytes(gzip.compress((event + "\n").encode()))
    assert read_ubi(tmp_path / "e.ndjson.gz").events[0].position == 1


def test_detect_layout() -> None:
    assert detect_layout('{"index": {"_index": "ubi_events"}}\n{}') == "bulk"
    assert detect_layout('ubi_events\t{"a": 1}') == "tsv"
    assert detect_layout('{"action_name": "click"}') == "jsonl"


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        read_ubi(path)
    return [str(p) for p in info.value.problems]


def test_bulk_errors_name_file_line_and_field(tmp_path: Path) -> None:
    p = tmp_path / "bad.ndjson"
    p.write_text(
        '{"index": {"_index": "ubi_events"}}\n'
        '{"action_name": "click", "event_attributes": {"position": {"ordinal": -1}}}\n'
        '{"action_name": "click"}\n'
        '{"index": {"_index": "logs"}}\n'
        '{"x": 1}\n'
        '{"index": {"_index": "ubi_queries"}}\n'
        '{"query_id": 5, "user_query": ["tv"]}\n'
        '{"index": {"_index": "ubi_events"}}\n'
        "{not json\n"
    )
    problems = _problems(p)
    assert problems == [
        f"{p}:2: [event_attributes.position.ordinal] position ordinal -1 is not a whole number "
        ">= 0 (log the position of the object in the result list)",
        f'{p}:3: document without an action line before it (put {{"index": {{"_index": '
        '"ubi_events"}} on the line above)',
        f"{p}:4: [_index] unknown index 'logs' (a UBI bulk file indexes into ubi_queries or "
        "ubi_events)",
        f"{p}:7: [user_query] user_query must be a string, found list (write it as a JSON string)",
        f"{p}:9: malformed JSON: Expecting property name enclosed in double quotes at column 2 "
        "(each line must be one complete JSON object)",
        f"{p}:8: action line without a document after it (remove it)",
    ]


def test_tsv_and_duplicate_errors(tmp_path: Path) -> None:
    p = tmp_path / "old.tsv"
    q = '{"query_id": "a", "user_query": "tv", "query_response_id": "r1"}'
    p.write_text(f"ubi_queries\t{q}\nno tab here\nother\t{{}}\nubi_queries\t{q}\n")
    assert _problems(p) == [
        f"{p}:2: no TAB after the index name (write index<TAB>json)",
        f"{p}:3: [index] unknown index 'other' (the first column is ubi_queries or ubi_events)",
        f"{p}:4: [query_response_id] duplicate response 'r1' of query_id 'a' (first seen at "
        f"{p}:1) (keep one record per search response)",
    ]


def test_bad_log_exits_2_without_traceback(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    p = tmp_path / "bad.jsonl"
    p.write_text('{"action_name": ["click"]}\n')
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from assay.cli import main; main()",
            "judge",
            "clicks",
            str(p),
            "--positions",
            "0",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=os.environ | {"ASSAY_RECORD": "0"},
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert f"{p}:1: [action_name] action_name must be a string, found list" in out.stderr


def test_bom_of_a_zip_member_dropped(tmp_path: Path) -> None:
    p = tmp_path / "ubi.zip"
    line = b'{"query_id": "a", "user_query": "tv", "timestamp": "2024-01-01T00:00:00Z"}\n'
    with zipfile.ZipFile(p, "w") as archive:
        archive.writestr("ubi_queries.jsonl", b"\xef\xbb\xbf" + line)
    log = read_ubi(p)
    assert log.layouts == {f"{p}:ubi_queries.jsonl": "jsonl"} and len(log.queries) == 1
