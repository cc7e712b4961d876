"""``-o perquery.parquet``: written by ``evaluate``, read back by ``report``, ``compare`` and
``gate`` as the same result as its JSON twin; other readers see a plain table."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from assay.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "examples" / "statistics" / "questions.csv"
RUNS = ROOT / "tests" / "data" / "runs"
STAMPS = {"created_at", "environment", "assay_version"}


def _run(args: list[str]) -> tuple[int, str]:
    """Exit code and stdout of ``assay ARGS``, in process (stderr joins it on failure)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue() if code == 0 else out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("columnar")
    paths = {}
    for name in ("keyword", "names"):
        j, p = out / f"{name}.json", out / f"{name}.parquet"
        args = ["evaluate", str(QUESTIONS), str(RUNS / f"{name}.trec"), "-m", "nDCG@10"]
        code, text = _run([*args, "-m", "RR", "--by", "language", "-o", str(j), "-o", str(p)])
        assert code == 0, text
        paths[f"{name}.json"], paths[f"{name}.parquet"] = j, p
    paths["dir"] = out
    return paths


def test_report_reads_parquet_as_its_json_twin(files: dict[str, Path]) -> None:
    code, from_json = _run(["report", str(files["keyword.json"]), "-f", "json"])
    assert code == 0, from_json
    code, from_parquet = _run(["report", str(files["keyword.parquet"]), "-f", "json"])
    assert code == 0, from_parquet
    assert json.loads(from_parquet) == json.loads(from_json)
    code, csv_text = _run(["report", str(files["keyword.parquet"]), "-f", "csv"])
    assert code == 0 and csv_text.splitlines()[0].startswith("query_id,language")
    # the table itself: one row per scored query, the rest of the result in its metadata
    table = pq.read_table(files["keyword.parquet"])
    data = json.loads(files["keyword.json"].read_text(encoding="utf-8"))
    assert table.column("query_id").to_pylist() == data["per_query"]["query_id"]
    assert table.column("RR").to_pylist() == data["per_query"]["RR"]


def test_report_writes_parquet_again(files: dict[str, Path]) -> None:
    again = files["dir"] / "again.parquet"
    code, text = _run(["report", str(files["keyword.json"]), "-o", str(again)])
    assert code == 0, text
    assert pq.read_table(again).equals(pq.read_table(files["keyword.parquet"]))
    code, text = _run(["report", str(files["keyword.json"]), "-f", "parquet"])
    assert code == 2 and "-o FILE.parquet" in text


def test_compare_takes_parquet_results(files: dict[str, Path]) -> None:
    common = ["-m", "nDCG@10", "--permutations", "500", "--resamples", "500", "-f", "json"]
    outputs = []
    for suffix in ("json", "parquet"):
        base, cand = files[f"keyword.{suffix}"], files[f"names.{suffix}"]
        code, text = _run(["compare", str(QUESTIONS), str(base), str(cand), *common])
        assert code == 0, text
        outputs.append({k: v for k, v in json.loads(text).items() if k not in STAMPS})
    assert outputs[0] == outputs[1]


def test_gate_takes_a_parquet_baseline(files: dict[str, Path]) -> None:
    args = ["gate", str(QUESTIONS), str(RUNS / "keyword.trec"), "-m", "nDCG@10", "--no-record"]
    code, text = _run([*args, "--baseline", str(files["keyword.parquet"])])
    assert code == 0, text
    code, worse = _run([*args[:2], str(RUNS / "names.trec"), *args[3:], "--baseline",
                        str(files["keyword.parquet"])])  # fmt: skip
    code_json, worse_json = _run([*args[:2], str(RUNS / "names.trec"), *args[3:], "--baseline",
                                  str(files["keyword.json"])])  # fmt: skip
    assert code == code_json and "nDCG@10" in worse and "nDCG@10" in worse_json


def test_parquet_needs_a_file(files: dict[str, Path]) -> None:
    code, text = _run(["evaluate", str(QUESTIONS), str(RUNS / "keyword.trec"), "-f", "parquet"])
    assert code == 2 and "-o FILE.parquet" in text
