"""Readers of free-text cases in the peers' own shapes: ragas, deepeval, OTLP/OpenInference.

The fixtures in tests/data/answers_text were written by hand from the peers'
documented shapes (ragas ``SingleTurnSample``/``EvaluationDataset``, deepeval
``LLMTestCase``, OTLP JSON with OpenInference semantic conventions). Parquet and
``save_to_disk`` folders are written here from the JSONL fixture's rows, the
latter by the ``datasets`` package itself when it is installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_answers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.answers.rows import detect_format, read_text_cases
from assay.core.errors import InputError


@pytest.fixture
def text_dir(data_dir: Path) -> Path:
    return data_dir / "answers_text"


def _ragas_rows(text_dir: Path) -> list[dict]:
    lines = (text_dir / "ragas.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _view(cases) -> list[tuple]:
    return [
        (c.question, c.answer, tuple(x.text for x in c.contexts), c.references, dict(c.metadata))
        for c in cases.cases
    ]


def test_ragas_jsonl_maps_every_field_and_keeps_the_rest(text_dir: Path) -> None:
    path = text_dir / "ragas.jsonl"
    assert detect_format(path) == "ragas"
    cases = read_text_cases(path, "ragas")
    rows = _ragas_rows(text_dir)
    assert len(cases) == len(rows)
    for case, row in zip(cases.cases, rows, strict=True):
        assert case.question == row["user_input"]
        assert case.answer == row["response"]
        assert [c.text for c in case.contexts] == row["retrieved_contexts"]
        assert case.references == ((row["reference"],) if row.get("reference") else ())
        assert case.metadata["language"] == row["language"]
    first = cases.cases[0]
    assert [c.text for c in first.reference_contexts] == rows[0]["reference_contexts"]
    assert cases.cases[2].extra == {"rubrics": {"score1": "wrong city"}}
    assert cases.cases[4].gaps == {"answer": "no response"}


def test_csv_lists_as_ragas_writes_them(text_dir: Path) -> None:
    path = text_dir / "ragas.csv"
    assert detect_format(path) == "ragas"
    cases = read_text_cases(path, "ragas")
    assert [c.text for c in cases.cases[1].contexts] == [
        "The New England Patriots and the Pittsburgh Steelers have each won six Super Bowls.",
        "The Dallas Cowboys' fans say five.",
    ]
    assert [c.line for c in cases.cases] == [2, 3]


def test_parquet_reads_as_the_jsonl(text_dir: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _ragas_rows(text_dir)
    for row in rows:
        row.pop("rubrics", None)  # a struct column present in one row only
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "ragas.parquet")
    assert detect_format(tmp_path / "ragas.parquet") == "ragas"
    parquet = read_text_cases(tmp_path / "ragas.parquet", "ragas")
    jsonl = read_text_cases(text_dir / "ragas.jsonl", "ragas")
    assert _view(parquet) == _view(jsonl)


def _save_to_disk(rows: list[dict], folder: Path) -> None:
    try:
        import datasets
    except ImportError:  # the documented layout: Arrow stream file + state.json + dataset_info.json
        import pyarrow as pa

        folder.mkdir()
        table = pa.Table.from_pylist(rows)
        arrow = str(folder / "data-00000-of-00001.arrow")
        with pa.OSFile(arrow, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        state = {"_data_files": [{"filename": "data-00000-of-00001.arrow"}], "_split": None}
        (folder / "state.json").write_text(json.dumps(state))
        features = {name: {"_type": "Value"} for name in table.column_names}
        (folder / "dataset_info.json").write_text(json.dumps({"features": features}))
        return
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))


def test_save_to_disk_folder_reads_without_datasets(text_dir: Path, tmp_path: Path) -> None:
    rows = _ragas_rows(text_dir)
    for row in rows:
        row.pop("rubrics", None)
    folder = tmp_path / "ragas_ds"
    _save_to_disk(rows, folder)
    assert detect_format(folder) == "ragas"
    cases = read_text_cases(folder, "ragas")
    assert _view(cases) == _view(read_text_cases(text_dir / "ragas.jsonl", "ragas"))


def test_dataset_dict_folder_keeps_the_split(text_dir: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    rows = _ragas_rows(text_dir)
    for row in rows:
        row.pop("rubrics", None)
    split = {
        "test": datasets.Dataset.from_list(rows[:2]),
        "dev": datasets.Dataset.from_list(rows[2:]),
    }
    datasets.DatasetDict(split).save_to_disk(str(tmp_path / "dd"))
    cases = read_text_cases(tmp_path / "dd", "ragas")
    assert sorted(c.metadata["split"] for c in cases.cases) == ["dev"] * 3 + ["test"] * 2


def test_deepeval_test_cases(text_dir: Path) -> None:
    path = text_dir / "deepeval.json"
    assert detect_format(path) == "deepeval"
    cases = read_text_cases(path, "deepeval")
    raw = json.loads(path.read_text("utf-8"))
    for case, item in zip(cases.cases, raw, strict=True):
        assert case.question == item["input"]
        assert case.answer == item["actual_output"]
        assert [c.text for c in case.contexts] == item["retrieval_context"]
        assert case.references == (item["expected_output"],)
        assert [c.text for c in case.reference_contexts] == item.get("context", [])
        assert case.metadata["name"] == item["name"]
    assert cases.cases[0].extra == {"tags": ["policy"]}


def test_otlp_traces_one_case_per_trace_missing_spans_said(text_dir: Path) -> None:
    path = text_dir / "traces.json"
    assert detect_format(path) == "otlp"
    cases = read_text_cases(path, "otlp")
    first, second = cases.cases
    assert first.case_id == "0af7651916cd43dd8448eb211c80319c"
    assert first.question == "When was the first Super Bowl played?"
    assert first.answer == "On January 15, 1967."
    assert [(c.doc_id, c.score) for c in first.contexts] == [("SB1", 0.92), ("SB2", 0.41)]
    assert first.metadata["service.name"] == "docs-rag"
    assert second.answer is None and second.gaps == {"answer": "no LLM span"}
    assert [c.doc_id for c in second.contexts] == ["SB2"] and second.contexts[0].text is None


def test_otlp_jsonl_export_without_retriever(tmp_path: Path, text_dir: Path) -> None:
    export = json.loads((text_dir / "traces.json").read_text("utf-8"))
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    kept = [s for s in spans if s["name"] != "retrieve"]
    export["resourceSpans"][0]["scopeSpans"][0]["spans"] = kept[:2]
    other = json.loads(json.dumps(export))
    other["resourceSpans"][0]["scopeSpans"][0]["spans"] = kept[2:]
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(export) + "\n" + json.dumps(other) + "\n")
    cases = read_text_cases(path, "otlp")
    assert [c.gaps for c in cases.cases] == [
        {"contexts": "no retriever span"},
        {"answer": "no LLM span", "contexts": "no retriever span"},
    ]


def _problems(path: Path, fmt: str) -> list[str]:
    with pytest.raises(InputError) as exc:
        read_text_cases(path, fmt)
    return [str(p) for p in exc.value.problems]


def test_bad_rows_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    rows = [
        {"user_input": "q1", "response": "a", "reference": "a"},
        {"user_input": "q2", "response": 3, "retrieved_contexts": "one text"},
        {"user_input": "q3", "reference": "x"},
        {
            "user_input": "q4",
            "response": "b",
            "retrieved_contexts": ["c"],
            "retrieved_context_ids": ["d1", "d2"],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = _problems(path, "ragas")
    assert problems == [
        'bad.jsonl:2: [response] response must be text, got 3 (write "response": "...")',
        "bad.jsonl:2: [retrieved_contexts] retrieved_contexts must be a list of texts, got "
        '\'one text\' (write "retrieved_contexts": ["...", "..."])',
        "bad.jsonl:3: [response] missing required key 'response' (a ragas row holds user_input, "
        "response, retrieved_contexts, retrieved_context_ids, reference, reference_contexts, "
        "reference_context_ids)",
        "bad.jsonl:4: [retrieved_context_ids] 2 retrieved context ids for 1 retrieved contexts "
        "(give one id per context, in the same order)",
    ]


def test_bad_csv_list_and_bad_span(tmp_path: Path, text_dir: Path) -> None:
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text("user_input,response,retrieved_contexts\nq,a,\"['x'\"\n")
    assert (
        "bad.csv:2: [retrieved_contexts] retrieved_contexts must be a list"
        in _problems(csv_path, "ragas")[0]
    )
    export = json.loads((text_dir / "traces.json").read_text("utf-8"))
    retriever = export["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    retriever["attributes"][4]["value"] = {"stringValue": "high"}
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(export))
    assert _problems(path, "otlp") == [
        "traces.json: [retrieval.documents.0.document.score] span 00f067aa0ba902b7: document "
        "score must be a number, got 'high' (write the score as doubleValue)"
    ]
    retriever["attributes"][4]["value"] = {"doubleValue": 0.5}
    for attribute in retriever["attributes"][5:]:  # document 1 renumbered 2: a gap
        attribute["key"] = attribute["key"].replace(".1.", ".2.")
    path.write_text(json.dumps(export))
    assert _problems(path, "otlp") == [
        "traces.json: [retrieval.documents] span 00f067aa0ba902b7: retrieval documents are "
        "numbered [0, 2], not 0..1 (number the documents from 0 without gaps)"
    ]


def test_cli_reads_scores_and_exits_2_on_bad_input(
    text_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["answers", str(text_dir / "deepeval.json"), "--no-record"], capsys)
    assert code == 0, err
    assert "Answers (deepeval)" in out and "Ledger (2 cases read)" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"user_input": "q", "response": ["a"]}\n')
    code, out, err = run(
        ["answers", str(bad), "--no-record", "-o", str(tmp_path / "r.json")], capsys
    )
    assert code == 2 and "bad.jsonl:1: [response] response must be text" in err
    assert not (tmp_path / "r.json").exists()
    code, out, err = run(
        ["answers", str(text_dir / "ragas.jsonl"), "--input-format", "otlp", "--no-record"], capsys
    )
    assert code == 2 and "ragas.jsonl" in err
    unknown = tmp_path / "odd.jsonl"
    unknown.write_text('{"prompt": "q", "completion": "a"}\n')
    code, out, err = run(["answers", str(unknown), "--no-record"], capsys)
    assert code == 2 and "cannot tell the format from the fields completion, prompt" in err


_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)
_ROW = st.fixed_dictionaries(
    {
        "user_input": _TEXT,
        "response": _TEXT,
        "retrieved_contexts": st.lists(_TEXT, min_size=1, max_size=3),
        "reference": _TEXT,
    }
)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(_ROW, min_size=1, max_size=4))
def test_jsonl_csv_and_parquet_read_alike(rows: list[dict]) -> None:
    """The same rows written as JSONL, as pandas writes CSV (lists as Python literals, as
    ragas' to_csv does) and as Parquet read as the same cases."""
    import tempfile

    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "r.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
        )
        pd.DataFrame(rows).to_csv(folder / "r.csv", index=False)
        pd.DataFrame(rows).to_parquet(folder / "r.parquet")
        views = [
            _view(read_text_cases(folder / f"r.{s}", "ragas")) for s in ("jsonl", "csv", "parquet")
        ]
    expected = [
        (r["user_input"], r["response"] if r["response"].strip() else None,
         tuple(r["retrieved_contexts"]), (r["reference"],) if r["reference"].strip() else (), {})
        for r in rows
    ]  # fmt: skip
    assert views == [expected, expected, expected]
