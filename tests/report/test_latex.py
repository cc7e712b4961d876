"""``-f latex``: booktabs tables of evaluations and comparisons, escaped, compiled by TeX."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from assay.report.escape import latex_text
from assay.report.latex import render_latex_comparison, render_latex_evaluation
from assay.stats.compare import compare
from helpers_synthetic import synthetic_result

SPECIAL = "a_b&c%d$e#f{g}h~i^j\\k"


def test_every_special_character_is_escaped() -> None:
    assert latex_text(SPECIAL) == (
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )
    assert latex_text("line\nbreak") == "line break"
    # no special character survives unescaped
    body = re.sub(
        r"\\(textasciitilde|textasciicircum|textbackslash)\{\}|\\[_&%$#{}]", "", latex_text(SPECIAL)
    )
    assert not set(body) & set("_&%$#{}~^\\")


def _results():
    rng = np.random.default_rng(3)
    base = rng.random(50)
    return [
        synthetic_result("bm25_base", {"nDCG@10": base, "R@5": base}),
        synthetic_result("dense&co", {"nDCG@10": np.clip(base + 0.2, 0, 1), "R@5": base}),
        synthetic_result("worse%", {"nDCG@10": np.clip(base - 0.2, 0, 1), "R@5": base}),
    ]


def test_comparison_table_marks_the_significant_wins_and_the_best() -> None:
    result = compare(_results(), test="t", correction="bonferroni", n_resamples=200)
    text = render_latex_comparison(result)
    assert "\\toprule" in text and "\\midrule" in text and "\\bottomrule" in text
    assert "bm25\\_base" in text and "dense\\&co" in text and "worse\\%" in text
    assert "nDCG@10" in text and "Bonferroni correction over 4 comparisons" in text
    assert "paired t test" in text
    rows = {
        line.split(" & ")[1]: line for line in text.splitlines() if line[:2] in ("a ", "b ", "c ")
    }
    by = {(c.candidate, c.metric): c for c in result.comparisons}
    assert by[("dense&co", "nDCG@10")].verdict == "better"
    assert by[("worse%", "nDCG@10")].verdict == "worse"
    # b beats a and c is beaten by a: b's nDCG carries a, a's carries c; b's value is the best
    ndcg = {name: line.split(" & ")[2] for name, line in rows.items()}
    assert ndcg["dense\\&co"].startswith("\\textbf{") and ndcg["dense\\&co"].endswith("$^{a}$")
    assert ndcg["bm25\\_base"].endswith("$^{c}$")
    assert "$^" not in ndcg["worse\\%"]
    assert "$^" not in "".join(line.split(" & ")[3] for line in rows.values())  # R@5: no change


def _cli(args: list[str], capsys) -> str:
    from assay.cli.app import main

    with pytest.raises(SystemExit) as exc:
        main([*args, "--no-record"])
    assert exc.value.code == 0
    return capsys.readouterr().out


def _files(tmp_path: Path) -> tuple[Path, Path]:
    import json

    judgments, run = tmp_path / "qrels.jsonl", tmp_path / "run.trec"
    lines, rows = [], []
    for i in range(12):
        lang = "en" if i % 2 else "de_AT"
        lines.append(json.dumps({"query_id": f"q{i}", "query": f"text {i}",
                                 "relevant": {f"d{i}": 1}, "language": lang}))  # fmt: skip
        docs = [f"x{j}" for j in range(5)]
        docs.insert(i % 4, f"d{i}")
        rows += [f"q{i} Q0 {d} {r + 1} {10 - r} run_1" for r, d in enumerate(docs)]
    judgments.write_text("\n".join(lines) + "\n")
    run.write_text("\n".join(rows) + "\n")
    return judgments, run


def test_evaluation_table_through_the_cli(tmp_path: Path, capsys) -> None:
    judgments, run = _files(tmp_path)
    args = ["evaluate", str(judgments), str(run), "-m", "nDCG@10", "-m", "R@5", "--by", "language"]
    text = _cli([*args, "-f", "latex"], capsys)
    lines = text.splitlines()
    assert lines[lines.index("\\midrule") + 1].startswith("all & ")
    groups = [line for line in lines if line.startswith("language=")]
    assert len(groups) >= 2 and "\\textbf{" in text
    assert "\\begin{tabular}{llrr}" in text


def test_render_of_a_result_file_and_tex_suffix(tmp_path: Path, capsys) -> None:
    from assay.report.render import render

    result = compare(_results(), test="t", n_resamples=200)
    assert render(result, "latex") == render_latex_comparison(result)
    judgments, run = _files(tmp_path)
    out = tmp_path / "table.tex"
    _cli(["evaluate", str(judgments), str(run), "-o", str(out)], capsys)
    assert out.read_text().startswith("% \\usepackage{booktabs}")


def _compile(tex: str, tmp_path: Path) -> subprocess.CompletedProcess:
    doc = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
    doc += tex + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (texlive) installed")
def test_tables_compile_with_pdflatex(tmp_path: Path) -> None:
    names = [SPECIAL, "dense&co", "x"]
    results = [
        r.model_copy(update={"run": r.run.model_copy(update={"name": n})})
        for r, n in zip(_results(), names, strict=True)
    ]
    comparison = compare(results, test="t", n_resamples=200)
    done = _compile(render_latex_comparison(comparison), tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    evaluation = results[0]
    done = _compile(render_latex_evaluation(evaluation), tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
