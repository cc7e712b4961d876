"""Comparison renderers read the ComparisonResult and show its numbers."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from rich.console import Console

from assay.report.compare_csv import render_csv
from assay.report.compare_html import render_html
from assay.report.compare_json import render_json
from assay.report.compare_markdown import render_markdown
from assay.report.compare_terminal import render_terminal
from assay.stats.compare import compare
from assay.stats.synthetic import synthetic_result


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    n = 40
    base = rng.random(n)
    worse = np.clip(base - 0.15 + rng.normal(0, 0.05, n), 0, 1)
    meta = {"language": ["en", "de"] * 20}
    texts = [f"query <b>{i}</b> | pipe" for i in range(n)]
    a = synthetic_result(
        "base", {"nDCG@10": base}, metadata=meta, texts=texts, first_rel_rank=[1] * n
    )
    b = synthetic_result(
        "cand", {"nDCG@10": worse}, metadata=meta, texts=texts, first_rel_rank=[3] * n
    )
    return compare([a, b], by=["language"], n_permutations=2000, n_resamples=2000)


def test_json_has_every_number(result) -> None:
    data = json.loads(render_json(result))
    c = data["comparisons"][0]
    assert c["delta"] == result.comparisons[0].delta
    assert c["verdict"] == "worse"
    assert len(data["per_query"]) == 40 and data["kind"] == "comparison"


def test_csv_has_paired_values_and_deltas(result) -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(result))))
    assert len(rows) == 40
    row = rows[0]
    delta = float(row["nDCG@10 [cand]"]) - float(row["nDCG@10 [base]"])
    assert float(row["delta nDCG@10 [cand]"]) == pytest.approx(delta)
    assert row["language"] in ("en", "de") and row["first_rel_rank [cand]"] == "3"


def test_markdown_table(result) -> None:
    md = render_markdown(result)
    c = result.comparisons[0]
    assert "| cand | nDCG@10 |" in md
    assert f"{c.delta:+.4f}" in md and "▼ worse" in md
    assert "Slices with a detectable change" in md


def test_terminal_tables(result) -> None:
    console = Console(file=io.StringIO(), width=160, no_color=True)
    render_terminal(result, console)
    text = console.file.getvalue()
    assert "worse" in text and "Per slice" in text and "Power" in text
    assert f"{result.comparisons[0].delta:+.4f}" in text


def test_html_is_self_contained_and_escaped(result) -> None:
    page = render_html(result)
    assert "<script src=" not in page and "cdn.plot.ly" not in page.split("</script>", 1)[1]
    assert page.count("Plotly.newPlot") >= 2  # forest plot + sorted deltas
    assert "id=per-query" in page and "assayFilter" in page
    assert "query &lt;b&gt;0&lt;/b&gt;" in page and "<b>0</b>" not in page
    assert len(page) > 1_000_000  # plotly.js inline
