"""Each score and the first failing layer, on small hand-built cases."""

from __future__ import annotations

from pathlib import Path

from helpers_answers import case, write_cases

from assay.answers import GroundedResponse, load_cases, score_cases

A, B, C = "FS_UNDERNOURISH_PCT", "PV_HEADCOUNT_NPL_PCT", "LF_UNEMP_PCT"


def _claims(*claims: tuple[str, list[str]]) -> list[dict]:
    return [{"text": t, "citations": c} for t, c in claims]


def _answered(answer: str, claims: list[dict], support: dict, **extra) -> dict:
    return case(
        response={"status": "answered", "answer": answer, "claims": claims},
        support=support,
        **extra,
    )


def _declined(**extra) -> dict:
    return case(response={"status": "declined", "claims": []}, support={}, **extra)


def _score(tmp_path: Path, cases: list[dict], **kwargs):
    ids = [dict(c, case_id=f"c{i}") for i, c in enumerate(cases)]
    return score_cases(load_cases(write_cases(tmp_path / "cases.jsonl", ids)), **kwargs)


def test_provenance_contract() -> None:
    ok = GroundedResponse(status="answered", claims=[{"text": "x", "citations": [A]}])
    assert ok.check_provenance([A, B]).passed
    outside = ok.check_provenance([B])
    assert not outside.passed and outside.reasons == [f"claim 0 cites {A} (not retrieved)"]
    assert not GroundedResponse(status="answered").check_provenance([A]).passed
    uncited = GroundedResponse(status="answered", claims=[{"text": "x", "citations": []}])
    assert uncited.check_provenance([A]).reasons == ["claim 0 cites nothing"]
    assert GroundedResponse(status="declined").check_provenance([]).passed
    talkative = GroundedResponse(status="declined", claims=[{"text": "x", "citations": [A]}])
    assert not talkative.check_provenance([A]).passed


def test_claim_support_any_citation_supports(tmp_path: Path) -> None:
    one = _answered(
        "7.6%", _claims(("a", [A, B]), ("b", [A])), {"0": {A: False, B: True}, "1": {A: False}}
    )
    result = _score(tmp_path, [one])
    assert result.scores["claim_support_rate"].model_dump() == {
        "value": 0.5,
        "numerator": 1,
        "denominator": 2,
        "kind": "rate",
    }
    assert result.scores["hallucination_rate"].value == 1.0
    assert result.per_case[0]["first_failure"] == "unsupported_claim"
    assert result.per_case[0]["detail"] == "claim 1 unsupported"


def test_status_refusals_and_false_refusals(tmp_path: Path) -> None:
    cases = [
        _declined(expected_status="declined", expected_ids=None),  # right refusal
        _answered(
            "7.6%",
            _claims(("a", [A])),
            {"0": {A: True}},  # should have declined
            expected_status="declined",
            expected_ids=None,
        ),
        _declined(),  # false refusal: evidence A was retrieved
        _declined(retrieved_ids=[B]),  # declined, evidence missed: a retrieval miss
    ]
    result = _score(tmp_path, cases)
    s = result.scores
    assert (s["status_accuracy"].numerator, s["status_accuracy"].denominator) == (1, 4)
    assert (s["refusal_accuracy"].numerator, s["refusal_accuracy"].denominator) == (1, 2)
    assert (s["false_refusal_rate"].numerator, s["false_refusal_rate"].denominator) == (1, 1)
    assert [r["first_failure"] for r in result.per_case] == [
        "none",
        "wrong_status",
        "wrong_status",
        "retrieval_miss",
    ]
    assert result.failures["retrieval_miss"] == 1 and result.failures["wrong_status"] == 2
    assert (s["evidence_hit_rate"].numerator, s["evidence_hit_rate"].denominator) == (1, 2)


def test_broken_provenance_layer(tmp_path: Path) -> None:
    bad = _answered("7.6%", _claims(("a", [C])), {"0": {C: True}})
    result = _score(tmp_path, [bad])
    assert result.scores["provenance_pass_rate"].value == 0.0
    assert result.per_case[0]["first_failure"] == "broken_provenance"
    assert result.scores["citation_validity"].value == 0.0  # cited but not retrieved


def test_citation_validity_with_corpus(tmp_path: Path) -> None:
    one = _answered("7.6%", _claims(("a", [A, B])), {"0": {A: True, B: False}})
    without = _score(tmp_path, [one])
    with_corpus = _score(tmp_path, [one], corpus_ids={A, C})
    assert without.scores["citation_validity"].value == 1.0
    assert (
        with_corpus.scores["citation_validity"].numerator,
        with_corpus.scores["citation_validity"].denominator,
    ) == (1, 2)
    assert with_corpus.per_case[0]["invalid_citations"] == [B]


def test_numeric_accuracy_and_numbers_verified(tmp_path: Path) -> None:
    right = _answered("In 2022, 7.6% were hungry.", _claims(("a", [A])), {"0": {A: True}})
    wrong = _answered(
        "In 2022, 7.6% were hungry, against 9.9% before.", _claims(("a", [A])), {"0": {A: True}}
    )
    silent = _answered("Hunger fell.", _claims(("a", [A])), {"0": {A: True}})
    unchecked = _answered("7.6%", _claims(("a", [A])), {"0": {A: True}}, expected_values=None)
    result = _score(tmp_path, [right, wrong, silent, unchecked])
    s = result.scores
    assert (s["numeric_accuracy"].numerator, s["numeric_accuracy"].denominator) == (1, 3)
    assert (s["numbers_verified"].numerator, s["numbers_verified"].denominator) == (2, 3)
    rows = result.per_case
    assert [r["first_failure"] for r in rows] == ["none", "wrong_number", "wrong_number", "none"]
    assert rows[1]["detail"] == "unverified: 9.9%"
    assert rows[2]["detail"] == "no number stated"


def test_language_resolves_separators(tmp_path: Path) -> None:
    value = [{"value": 1.234}]
    fr = _answered(
        "Le ratio est 1,234.",
        _claims(("a", [A])),
        {"0": {A: True}},
        language="fr",
        expected_values=value,
    )
    en = _answered(
        "The ratio is 1,234.",
        _claims(("a", [A])),
        {"0": {A: True}},
        language="en",
        expected_values=value,
    )
    result = _score(tmp_path, [fr, en])
    assert [r["numbers_ok"] for r in result.per_case] == [True, False]


def test_groups_have_n_and_scores(tmp_path: Path) -> None:
    cases = [
        _answered("7.6%", _claims(("a", [A])), {"0": {A: True}}, language="en"),
        _answered("7,6 %", _claims(("a", [A])), {"0": {A: False}}, language="fr"),
        _declined(language="fr", query_class="paraphrase; keyword"),
    ]
    result = _score(tmp_path, cases, by=["language", "query_class"])
    fr = result.groups["language"]["fr"]
    assert fr["n"] == 2 and fr["claim_support_rate"] == 0.0 and fr["status_accuracy"] == 0.5
    assert result.groups["language"]["en"]["n"] == 1
    assert {k: v["n"] for k, v in result.groups["query_class"].items()} == {
        "(none)": 2,
        "keyword": 1,
        "paraphrase": 1,
    }


def test_undefined_scores_are_none(tmp_path: Path) -> None:
    result = _score(tmp_path, [_declined(expected_status="declined", expected_ids=None)])
    for name in (
        "claim_support_rate",
        "citation_validity",
        "hallucination_rate",
        "numeric_accuracy",
        "false_refusal_rate",
        "evidence_hit_rate",
    ):
        assert result.scores[name].value is None, name
    assert result.scores["refusal_accuracy"].value == 1.0


def test_judges_are_counted(tmp_path: Path) -> None:
    one = _answered(
        "7.6%",
        _claims(("a", [A]), ("b", [A])),
        {"0": {"judgments": {A: True}, "judged_by": "model"}, "1": {A: True}},
    )
    result = _score(tmp_path, [one])
    assert result.judged_by == {"model": 1, "unrecorded": 1}


def test_corpus_ids_from_a_plain_list(tmp_path: Path) -> None:
    from assay.answers import read_corpus_ids

    plain = tmp_path / "ids.txt"
    plain.write_text(f"{A}\n\n{C}\n", encoding="utf-8")
    assert read_corpus_ids(plain) == {A, C}
