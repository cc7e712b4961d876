"""Every report's tables, at 80 columns on a terminal and piped, on wide inputs.

Wide inputs: 20 metrics, long query texts, long system names. On a terminal no
line is wider than the terminal; anywhere else each table row is one line. In
both, no metric name, number or word of a query text is cut.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.cells import cell_len
from rich.console import Console

from assay.report.compare_common import MARKS
from assay.report.table import Column, Styled, Table, markdown_table, print_table

ROOT = Path(__file__).resolve().parents[2]
METRICS = [
    *("P@1", "P@5", "P@10", "P@20", "R@5", "R@10", "R@20", "R@100"),
    *("nDCG@5", "nDCG@10", "nDCG@20", "nDCG@100", "RR", "AP", "Rprec"),
    *("Success@1", "Success@5", "Success@10", "RR@10", "AP@100"),
]
LONG_TEXT = (
    "how did the human immunodeficiency virus incidence change among adolescents "
    "in sub-Saharan Africa between 2010 and 2020 according to UNAIDS estimates"
)
LONG_NAME = "bm25-with-cross-encoder-reranker-v2-large-multilingual"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal(width: int = 80) -> Console:
    """A console that is a terminal ``width`` columns wide (no colour, for reading)."""
    return Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None)


def pipe() -> Console:
    """A console writing to a pipe (not a terminal), 80 columns by default as rich assumes."""
    return Console(file=io.StringIO(), width=80)


def output(render: Callable[[Console], Any], console: Console) -> str:
    render(console)
    return console.file.getvalue()  # type: ignore[attr-defined]


def assert_whole(text: str, tokens: Iterable[str]) -> None:
    """Each token appears whole on one line, between spaces or line ends."""
    lines = text.splitlines()
    for token in set(tokens):
        pattern = re.compile(rf"(?<!\S){re.escape(token)}(?!\S)")
        assert any(pattern.search(line) for line in lines), f"{token!r} cut or missing"


def assert_fits(text: str, width: int) -> None:
    assert "…" not in text
    widest = max(cell_len(line.rstrip()) for line in text.splitlines())
    assert widest <= width, f"a line is {widest} columns wide on an {width}-column terminal"


def assert_plain(text: str) -> None:
    assert "…" not in text
    assert not ANSI.search(text) and "\x1b" not in text


def wide_table() -> Table:
    cols = [Column("group", key=True), Column("n", "right")]
    cols += [Column(m, "right") for m in METRICS]
    cols.append(Column("text", wrap=True))
    table = Table(cols, title="Scores", caption="a caption")
    rng = np.random.default_rng(0)
    for g in ("all", "en", "language=fr"):
        table.add_row(g, "14", *(f"{v:.4f}" for v in rng.random(len(METRICS))), LONG_TEXT)
    return table


# --- the renderer itself -------------------------------------------------------------------


def test_terminal_splits_wide_tables_and_keeps_every_cell_whole() -> None:
    table = wide_table()
    text = output(lambda c: print_table(table, c), terminal())
    assert_fits(text, 80)
    assert_whole(text, METRICS)
    assert_whole(text, [str(c) for row in table.rows for c in row[:-1]])
    assert_whole(text, LONG_TEXT.split())
    assert text.count("group") >= 2  # split tables repeat the key column


def test_terminal_wraps_text_at_words_when_there_is_room() -> None:
    table = Table([Column("q", key=True), Column("RR", "right"), Column("text", wrap=True)])
    table.add_row("q01", "0.50", LONG_TEXT)
    text = output(lambda c: print_table(table, c), terminal())
    assert_fits(text, 80)
    assert_whole(text, LONG_TEXT.split())
    assert text.splitlines()[1].startswith("q01")  # inline, not moved below


def test_pipe_prints_each_row_on_one_line_at_full_width() -> None:
    table = wide_table()
    text = output(lambda c: print_table(table, c), pipe())
    assert_plain(text)
    lines = text.splitlines()
    assert lines[0] == "Scores" and lines[-1] == "a caption"
    assert all(m in lines[1].split() for m in METRICS)  # one header line
    assert len(lines) == 2 + 1 + len(table.rows)
    assert all(line.endswith(LONG_TEXT) for line in lines[2:-1])


def test_plain_columns_are_aligned() -> None:
    table = Table([Column("name"), Column("value", "right")])
    table.add_row("a", "1.5")
    table.add_row(Styled("longer name", "bold red"), "10.25")
    lines = output(lambda c: print_table(table, c), pipe()).splitlines()
    assert lines == ["name         value", "a              1.5", "longer name  10.25"]


def test_markdown_has_the_same_cells() -> None:
    table = wide_table()
    md = markdown_table(table)
    assert "| group | n | P@1 |" in md and "---:|" in md
    assert md.count(LONG_TEXT) == 3


# --- every report ----------------------------------------------------------------------------


def _evaluation() -> Any:
    from helpers_synthetic import synthetic_result

    rng = np.random.default_rng(1)
    n = 12
    values = {m: rng.random(n) for m in METRICS}
    meta = {"language": ["en", "fr", "es"] * 4}
    texts = [f"{LONG_TEXT} {i}" for i in range(n)]
    return synthetic_result(LONG_NAME, values, metadata=meta, texts=texts, first_rel_rank=[1] * n)


def _comparison() -> Any:
    from assay.stats.compare import compare
    from helpers_synthetic import synthetic_result

    rng = np.random.default_rng(2)
    n = 30
    metrics = METRICS[:6]
    base = {m: rng.random(n) for m in metrics}
    worse = {m: np.clip(v - 0.2 + rng.normal(0, 0.05, n), 0, 1) for m, v in base.items()}
    meta = {"language": ["en", "fr"] * 15}
    texts = [f"{LONG_TEXT} {i}" for i in range(n)]
    a = synthetic_result("baseline", base, metadata=meta, texts=texts, first_rel_rank=[1] * n)
    b = synthetic_result(LONG_NAME, worse, metadata=meta, texts=texts, first_rel_rank=[4] * n)
    return compare([a, b], by=["language"], n_permutations=500, n_resamples=500)


def _gate() -> Any:
    from assay.procedures.gating import run_gate
    from helpers_synthetic import synthetic_result

    rng = np.random.default_rng(3)
    n = 40
    base = {m: rng.random(n) for m in METRICS[:8]}
    worse = {m: np.clip(v - 0.1, 0, 1) for m, v in base.items()}
    meta = {"language": ["en", "fr"] * 20}
    a = synthetic_result(LONG_NAME, base, metadata=meta)
    b = synthetic_result(LONG_NAME, worse, metadata=meta)
    return run_gate(b, a, METRICS[:8], by=["language"], n_resamples=500, baseline_source="x.json")


def _history(tmp_path: Path) -> Any:
    from assay.store.api import open_store
    from assay.store.history import build_history
    from helpers_synthetic import synthetic_result

    rng = np.random.default_rng(4)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        for i in range(3):
            store.record(synthetic_result(f"{LONG_NAME}-{i}", {m: rng.random(5) for m in METRICS}))
        entries = store.list()
    return build_history(entries, store=url, metrics=METRICS)


def _answers() -> Any:
    from assay.answers import load_cases, score_cases

    cases = load_cases(ROOT / "examples" / "answers" / "cases.jsonl")
    return score_cases(cases, by=["language"], system_name=LONG_NAME)


def _tokens(kind: str, result: Any) -> list[str]:
    """Metric names and numbers of a report that must never be cut."""
    if kind == "evaluation":
        return [*result.metrics, *(f"{v:.2f}" for v in result.aggregate.values()), LONG_NAME]
    if kind == "comparison":
        c = result.comparisons
        return [
            *(x.metric for x in c),
            *(f"{x.delta:+.4f}" for x in c),
            *(f"{x.wins}/{x.losses}/{x.ties}" for x in c),
            *(f"{s.field}={s.value}" for s in result.slices),
            *(f"{s.delta:+.4f}" for s in result.slices),
            *(MARKS[s.verdict] for s in result.slices),
        ]
    if kind == "gate":
        checks = result.checks
        return [*(x.metric for x in checks), *(f"{x.delta:+.3f}" for x in checks), "regression"]
    if kind == "history":
        return [*result.metrics, *(f"{LONG_NAME}-{i}" for i in range(3))]
    return [*(f"{s.value:.2f}" for s in result.scores.values() if s.value is not None)]


def _render(kind: str) -> Callable[[Any, Console], None]:
    from assay.report.answers_terminal import print_answers
    from assay.report.compare_terminal import render_terminal as comparison
    from assay.report.evaluation import render_terminal as evaluation
    from assay.report.gate_terminal import render_terminal as gate
    from assay.report.history_terminal import render_terminal as history

    if kind == "evaluation":
        return lambda r, c: evaluation(r, c, per_query=True)
    return {"comparison": comparison, "gate": gate, "history": history, "answers": print_answers}[
        kind
    ]


KINDS = ("evaluation", "comparison", "gate", "history", "answers")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return {
        "evaluation": _evaluation(),
        "comparison": _comparison(),
        "gate": _gate(),
        "history": _history(tmp_path_factory.mktemp("history")),
        "answers": _answers(),
    }


@pytest.mark.parametrize("kind", KINDS)
def test_report_at_80_columns_on_a_terminal(kind: str, results: dict[str, Any]) -> None:
    result = results[kind]
    text = output(lambda c: _render(kind)(result, c), terminal())
    assert_fits(text, 80)
    assert_whole(text, _tokens(kind, result))
    if kind in ("evaluation", "comparison"):
        assert_whole(text, LONG_TEXT.split())


@pytest.mark.parametrize("kind", KINDS)
def test_report_piped_is_plain_and_whole(kind: str, results: dict[str, Any]) -> None:
    result = results[kind]
    text = output(lambda c: _render(kind)(result, c), pipe())
    assert_plain(text)
    assert_whole(text, _tokens(kind, result))
    if kind in ("evaluation", "comparison"):
        assert any(LONG_TEXT in line for line in text.splitlines())  # one line
    if kind in ("evaluation", "history"):
        header = next(line for line in text.splitlines() if "P@1" in line.split())
        assert all(m in header.split() for m in METRICS)


def test_history_shows_the_verdict_of_verify_rows(tmp_path: Path) -> None:
    from assay.procedures.verification import verify_results
    from assay.report.history_terminal import render_terminal
    from assay.store.api import open_store
    from assay.store.history import build_history
    from helpers_synthetic import synthetic_result

    good = synthetic_result("sys", {"nDCG@10": [0.9] * 12})
    bad = synthetic_result("sys-shuffled", {"nDCG@10": [0.1] * 12})
    url = f"sqlite:///{tmp_path / 'h.db'}"
    with open_store(url) as store:
        store.record(verify_results(good, bad, "nDCG@10", n_permutations=200, n_resamples=200))
        store.record(verify_results(good, good, "nDCG@10", n_permutations=200, n_resamples=200))
        report = build_history(store.list(kind="verify"), store=url)
    text = output(lambda c: render_terminal(report, c), pipe())
    assert "verify: pass" in text and "verify: FAIL" in text
