"""Comparison renderers read the ComparisonResult and show its numbers."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from rich.console import Console

from assay.report.compare_common import MARKS, effect, pval
from assay.report.compare_csv import render_csv
from assay.report.compare_json import render_json
from assay.report.compare_markdown import render_markdown
from assay.report.compare_terminal import render_terminal
from assay.stats.compare import compare
from assay.view import render_html
from helpers_synthetic import synthetic_result


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


@pytest.fixture(scope="module")
def wide():
    """3 candidates x 4 metrics with realistic names; one candidate equals the baseline."""
    rng = np.random.default_rng(3)
    n = 400
    metrics = ("nDCG@10", "RR", "R@100", "AP")
    base = {m: rng.random(n) for m in metrics}
    ranks = [int(r) for r in rng.integers(1, 20, n)]
    texts = [f"what is the <i>effect</i> of treatment {i} on outcome {i % 7}?" for i in range(n)]
    systems = [synthetic_result("bm25-baseline", base, texts=texts, first_rel_rank=ranks)]
    for name, shift in (("bm25+rerank-v2", 0.03), ("dense-e5-large", -0.01)):
        vals = {m: np.clip(v + shift + rng.normal(0, 0.15, n), 0, 1) for m, v in base.items()}
        systems.append(synthetic_result(name, vals, texts=texts, first_rel_rank=ranks[::-1]))
    systems.append(synthetic_result("unchanged", base, texts=texts, first_rel_rank=ranks))
    return compare(systems, n_permutations=2000, n_resamples=2000)


def test_json_has_every_number(result) -> None:
    data = json.loads(render_json(result))
    c = data["comparisons"][0]
    assert c["delta"] == result.comparisons[0].delta
    assert c["verdict"] == "worse"
    assert len(data["per_query"]["query_id"]) == 40 and data["kind"] == "comparison"


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


def test_markdown_has_raw_and_holm_p_effect_and_n(wide) -> None:
    md = render_markdown(wide)
    assert "| system | metric | n | baseline | candidate | Δ | 95% CI | p | p (Holm) | d |" in md
    assert any(c.p_value != c.p_adjusted for c in wide.comparisons)
    for c in wide.comparisons:
        cells = (
            f"| {c.n} | {c.baseline_mean:.4f} | {c.candidate_mean:.4f} | {c.delta:+.4f} | "
            f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}] | {pval(c.p_value)} | {pval(c.p_adjusted)} | "
            f"{effect(c.effect_size)} | {c.wins}/{c.losses}/{c.ties} | {MARKS[c.verdict]} |"
        )
        assert f"| {c.candidate} | {c.metric} {cells}" in md


def test_piped_table_has_every_statistic_on_one_line(wide) -> None:
    console = Console(file=io.StringIO(), width=80, no_color=True)  # a pipe: full width
    render_terminal(wide, console)
    lines = console.file.getvalue().splitlines()
    assert "\x1b" not in console.file.getvalue()
    header = next(line for line in lines if line.lstrip().startswith("system"))
    for col in ("n", "base", "cand", "Δ", "95% CI", "p", "p Holm", "d", "W/L/T", "verdict"):
        assert f" {col} " in f"{header} "
    for c in wide.comparisons:  # each comparison on one line, every number on it
        expected = [
            str(c.n),
            f"{c.delta:+.4f}",
            f"{pval(c.p_value)}  {pval(c.p_adjusted)}",
            effect(c.effect_size),
            f"{c.wins}/{c.losses}/{c.ties}",
            MARKS[c.verdict],
        ]
        assert any(
            line.lstrip().startswith(f"{c.candidate} ")
            and f" {c.metric} " in line
            and all(e in line for e in expected)
            for line in lines
        ), (c.candidate, c.metric)


def test_power_without_spread_reads_not_estimable(wide) -> None:
    console = Console(file=io.StringIO(), width=120, no_color=True)
    render_terminal(wide, console)
    text = console.file.getvalue()
    rows = [line for line in text.splitlines() if line.lstrip().startswith("unchanged ")]
    power_rows = [line for line in rows if "n/a" in line]
    assert len(power_rows) == 4
    assert all("n/a (no query differs)" in line for line in power_rows)
    assert all(line.rstrip().endswith("n/a") for line in power_rows)
    page = render_html(wide)
    power = page.split('id="power"', 1)[1].split("</table>", 1)[0]
    cells = '<td class="num">n/a (no query differs)</td><td class="num">n/a</td>'
    assert power.count(cells) == 4
    assert '<td class="num">2</td></tr>' not in power


def test_terminal_tables(result) -> None:
    console = Console(file=io.StringIO(), width=160, no_color=True)
    render_terminal(result, console)
    text = console.file.getvalue()
    assert "worse" in text and "Per slice" in text and "Power" in text
    assert f"{result.comparisons[0].delta:+.4f}" in text


def test_html_is_self_contained_and_escaped(result) -> None:
    page = render_html(result)
    assert "<script src=" not in page and "<link" not in page
    from assay.report.plotly_page import plotly_js

    assert plotly_js() in page  # the library inline, byte for byte
    assert "cdn.plot.ly" not in page.replace(plotly_js(), "")
    specs = re.findall(r'<script type="application/json" id="([a-z0-9-]+)-spec">', page)
    assert "forest-0" in specs and "deltas-0" in specs  # forest plot + sorted deltas
    assert 'id="per-query"' in page and "data-filter" in page
    assert "query &lt;b&gt;0&lt;/b&gt;" in page and "<b>0</b>" not in page
    assert len(page) > 1_000_000  # plotly.js inline


def test_html_puts_the_answer_first(result) -> None:
    """One line per measure (verdict, Δ, CI) before any plot, table or method text."""
    page = render_html(result)
    answer = page.split('id="answer"', 1)[1].split("</ul>", 1)[0]
    for c in result.comparisons:
        assert f"{c.delta:+.4f}" in answer and c.verdict in answer
        assert f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]" in answer
    first = page.index('id="answer"')
    assert first < page.index("<h2>Method</h2>") and first < page.index('id="per-query"')


def test_html_lists_largest_losses_and_gains(wide) -> None:
    page = render_html(wide)
    assert '<h2 id="changes">Largest losses and gains</h2>' in page
    section = page.split('<h2 id="changes">', 1)[1].split("<h2>", 1)[0]
    changed = [c for c in wide.comparisons if c.candidate != "unchanged"]
    assert section.count("<details") == len(changed)
    for c in changed:
        assert f"{c.candidate} · {c.metric}:" in section
        labelled = [('"worse">loss', q) for q in c.top_losses]
        labelled += [('"better">gain', q) for q in c.top_gains]
        assert labelled
        for label, q in labelled:
            text = q.text.replace("<", "&lt;").replace(">", "&gt;")
            row = (
                f'<td class={label}</td><td>{q.query_id}</td><td class="text">{text}</td>'
                f'<td class="num">{q.baseline:.4f}</td><td class="num">{q.candidate:.4f}</td>'
            )
            assert row in section
            ranks = (
                f'{q.delta:+.4f}</td><td class="num">{q.baseline_rank}</td>'
                f'<td class="num">{q.candidate_rank}</td>'
            )
            assert ranks in section
    assert "<i>effect</i>" not in section


def test_html_tables_scroll_instead_of_widening_the_page(wide) -> None:
    page = render_html(wide)
    for table in ('id="power"', 'id="per-query"', 'id="slices"'):
        if f"<table {table}" not in page:
            continue
        before = page.split(f"<table {table}", 1)[0]
        assert before.rstrip().endswith(('<div class="scroll">', '<div class="scroll tall">'))
    assert '<div class="scroll tall"><table id="per-query"' in page
    assert ".scroll { max-width: 100%; overflow-x: auto;" in page
