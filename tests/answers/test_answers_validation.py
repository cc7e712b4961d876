"""Every validation rule of a cases file: exit code 2, file, line, field and message."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from helpers_answers import BASE, case, run, write_cases

from assay.answers.load import load_cases
from assay.core.errors import InputError

FILE = "cases.jsonl"


def _second_line_error(tmp_path: Path, bad: dict | str, capsys) -> str:
    path = write_cases(tmp_path / FILE, [case(case_id="ok"), bad])
    code, out, err = run(["answers", str(path)], capsys)
    assert code == 2
    assert out == ""
    return err


def _bad_response(**changes) -> dict:
    c = case()
    c["response"].update(changes)
    return c


def _bad_support(support) -> dict:
    return case(support=support)


CASES = [
    ("blank line", "", None, "blank line"),
    ("malformed JSON", '{"case_id": "c02",', None, "malformed JSON"),
    ("not an object", "[1, 2]", None, "a case must be a JSON object, got list"),
    ("missing key", case(question=None), "question", "missing required key 'question'"),
    ("missing response", case(response=None), "response", "missing required key 'response'"),
    ("empty case id", case(case_id=""), "case_id", "case_id must be non-empty text"),
    (
        "unknown expected status",
        case(expected_status="answer"),
        "expected_status",
        "unknown status 'answer'",
    ),
    (
        "unknown response status",
        _bad_response(status="partial"),
        "response.status",
        "unknown status 'partial'",
    ),
    ("claims not a list", _bad_response(claims="x"), "response.claims", "valid list"),
    (
        "claim without text",
        _bad_response(claims=[{"citations": ["A"]}]),
        "response.claims[0].text",
        "field required",
    ),
    (
        "unknown response key",
        _bad_response(confidence=0.9),
        "response.confidence",
        "extra inputs are not permitted",
    ),
    (
        "retrieved ids not a list",
        case(retrieved_ids="FS_UNDERNOURISH_PCT"),
        "retrieved_ids",
        "retrieved_ids must be a list of document ids",
    ),
    (
        "duplicate retrieved id",
        case(retrieved_ids=["FS_UNDERNOURISH_PCT"] * 2),
        "retrieved_ids",
        "duplicate id 'FS_UNDERNOURISH_PCT' in retrieved_ids",
    ),
    (
        "expected ids not a list",
        case(expected_ids=[1]),
        "expected_ids",
        "expected_ids must be a list",
    ),
    ("no support for a claim", case(support=None), "support.0", "no support judgment for claim 0"),
    (
        "support not an object",
        _bad_support([True]),
        "support",
        "support must be an object keyed by claim index",
    ),
    (
        "support for a missing claim",
        _bad_support({"0": {"FS_UNDERNOURISH_PCT": True}, "1": {"FS_UNDERNOURISH_PCT": True}}),
        "support.1",
        "support for claim 1, but the response has 1 claim(s)",
    ),
    (
        "support key not an index",
        _bad_support({"0": {"FS_UNDERNOURISH_PCT": True}, "a": {}}),
        "support.a",
        "support key 'a' is not a claim index",
    ),
    (
        "judgment of a citation not cited",
        _bad_support({"0": {"FS_UNDERNOURISH_PCT": True, "LF_UNEMP_PCT": False}}),
        "support.0",
        "support judges 'LF_UNEMP_PCT', which claim 0 does not cite",
    ),
    (
        "citation without judgment",
        _bad_support({"0": {"judgments": {}}}),
        "support.0",
        "claim 0 cites 'FS_UNDERNOURISH_PCT' but support has no judgment for it",
    ),
    (
        "non-boolean judgment",
        _bad_support({"0": {"FS_UNDERNOURISH_PCT": 1}}),
        "support.0",
        "judgment must be true or false, got 1",
    ),
    (
        "string judgment",
        _bad_support({"0": {"FS_UNDERNOURISH_PCT": "yes"}}),
        "support.0",
        "judgment must be true or false, got 'yes'",
    ),
    (
        "not yet judged",
        _bad_support({"0": {"judgments": {"FS_UNDERNOURISH_PCT": None}}}),
        "support.0",
        "citation 'FS_UNDERNOURISH_PCT': not yet judged",
    ),
    (
        "unknown judge",
        _bad_support({"0": {"judgments": {"FS_UNDERNOURISH_PCT": True}, "judged_by": "crowd"}}),
        "support.0.judged_by",
        "unknown judged_by 'crowd'",
    ),
    ("unknown case-level judge", case(judged_by="llm"), "judged_by", "unknown judged_by 'llm'"),
    (
        "expected value not a number",
        case(expected_values=[{"value": "7.6"}]),
        "expected_values[0]",
        "value must be a number",
    ),
    (
        "negative tolerance",
        case(expected_values=[{"value": 7.6, "tolerance": -1}]),
        "expected_values[0]",
        "greater than or equal to 0",
    ),
    (
        "expected values not a list",
        case(expected_values={"value": 7.6}),
        "expected_values",
        "expected_values must be a list",
    ),
    ("misspelled key holding an object", case(suport={"0": {}}), "suport", "unknown key 'suport'"),
    ("system not text", case(system=3), "system", "system must be non-empty text"),
]


@pytest.mark.parametrize(("label", "bad", "field", "message"), CASES, ids=[c[0] for c in CASES])
def test_rule(tmp_path: Path, capsys, label: str, bad, field: str | None, message: str) -> None:
    err = _second_line_error(tmp_path, bad, capsys)
    where = f"{FILE}:2: [{field}]" if field else f"{FILE}:2:"
    assert where in err
    assert message in err
    assert "(" in err  # every problem carries a hint


def test_duplicate_case_id(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / FILE, [case(), case(case_id="c02"), case()])
    code, _, err = run(["answers", str(path)], capsys)
    assert code == 2
    assert "cases.jsonl:3: [case_id] duplicate case_id 'c01' (first seen on line 1)" in err


def test_duplicate_of_an_invalid_line_is_reported(tmp_path: Path, capsys) -> None:
    bad = case(expected_status="maybe")
    path = write_cases(tmp_path / FILE, [bad, case(), case(case_id="c02"), bad])
    code, _, err = run(["answers", str(path)], capsys)
    assert code == 2
    assert "cases.jsonl:1: [expected_status] unknown status 'maybe'" in err
    assert "cases.jsonl:2: [case_id] duplicate case_id 'c01' (first seen on line 1)" in err
    assert "cases.jsonl:4: [case_id] duplicate case_id 'c01' (first seen on line 1)" in err
    assert "cases.jsonl:4: [expected_status]" in err  # the duplicate's own problems too


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    path = write_cases(
        tmp_path / FILE,
        [
            case(expected_status="x"),
            "",
            case(case_id="c03", support={"0": {"FS_UNDERNOURISH_PCT": 2}}),
        ],
    )
    with pytest.raises(InputError) as exc:
        load_cases(path)
    assert [(p.line, p.field) for p in exc.value.problems] == [
        (1, "expected_status"),
        (2, None),
        (3, "support.0"),
    ]


def test_empty_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / FILE
    path.write_text("", encoding="utf-8")
    code, _, err = run(["answers", str(path)], capsys)
    assert code == 2 and "cases.jsonl: empty file: no cases" in err


def test_missing_file(tmp_path: Path, capsys) -> None:
    code, _, err = run(["answers", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "file not found" in err


def test_encoding_error_names_the_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / FILE
    good = write_cases(tmp_path / "good.jsonl", [case()]).read_bytes()
    path.write_bytes(good + b'{"case_id": "caf\xe9"}\n')
    code, _, err = run(["answers", str(path)], capsys)
    assert code == 2 and "cases.jsonl:2: bytes that are not UTF-8 at column 17" in err


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    plain = write_cases(tmp_path / "plain.jsonl", [case(), case(case_id="c02")])
    windows = tmp_path / "windows.jsonl"
    windows.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\n", b"\r\n"))
    a, b = load_cases(plain), load_cases(windows)
    assert [c.case_id for c in b.cases] == ["c01", "c02"]
    assert a.version == b.version


def test_seed_short_support_form_is_accepted(tmp_path: Path) -> None:
    short = case(support={"0": {"FS_UNDERNOURISH_PCT": True}}, judged_by="rule")
    (loaded,) = load_cases(write_cases(tmp_path / FILE, [short])).cases
    assert loaded.support[0].judgments == {"FS_UNDERNOURISH_PCT": True}
    assert loaded.support[0].judged_by == "rule"


def test_version_ignores_key_order_and_line_order(tmp_path: Path) -> None:
    first = case()
    reordered = dict(reversed(list(copy.deepcopy(BASE).items())))
    a = load_cases(write_cases(tmp_path / "a.jsonl", [first, case(case_id="c02")]))
    b = load_cases(write_cases(tmp_path / "b.jsonl", [case(case_id="c02"), reordered]))
    c = load_cases(write_cases(tmp_path / "c.jsonl", [case(question="other"), case(case_id="c02")]))
    assert a.version == b.version != c.version


def test_unknown_by_field_is_a_usage_error(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / FILE, [case()])
    code, _, err = run(["answers", str(path), "--by", "topic"], capsys)
    assert code == 2 and "no metadata field 'topic'" in err and "language" in err


def test_unknown_format_is_a_usage_error(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / FILE, [case()])
    code, _, err = run(["answers", str(path), "--format", "html"], capsys)
    assert code == 2 and "--format must be one of" in err and "'html'" in err


def test_short_format_flag(tmp_path: Path, capsys) -> None:
    path = write_cases(tmp_path / FILE, [case()])
    code, out, err = run(["answers", str(path), "-f", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["kind"] == "answers"
    code, _, err = run(["answers", str(path), "-f", "yaml"], capsys)
    assert code == 2 and "--format must be one of" in err and "'yaml'" in err
