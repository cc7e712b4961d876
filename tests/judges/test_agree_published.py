"""`assay judge agree` reproduces the agreement figures published for the shared LLM labels.

Figures from ../shared/data/llm_judgments/PROVENANCE.md: the webis SIGIR'25 notebook
(NLTK multi_kappa = Cohen's unweighted kappa, trectools exact agreement) and the LLMJudge
notebook (Krippendorff's ordinal alpha on all levels and binarised at 1, 2, 3; grades
clipped to 3), plus the table recomputed with scikit-learn and krippendorff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.procedures.agreement import agreement

WEBIS = [  # file stem, published kappa, published agreement (3 decimals)
    ("dl19-passage.gpt-4o.umbrela", "dl19-passage.human", 0.316, 0.522),
    ("dl19-passage.gpt-4o-mini.umbrela", "dl19-passage.human", 0.266, 0.470),
    ("dl20-passage.gpt-4o.umbrela", "dl20-passage.human", 0.314, 0.578),
    ("dl20-passage.gpt-4o-mini.umbrela", "dl20-passage.human", 0.258, 0.513),
]
LLMJUDGE = [  # ordinal alpha: all levels, binarised at >=1, >=2, >=3 (6 decimals)
    ("dl2023.willia-umbrela1", (0.491793, 0.412928, 0.393941, 0.312438)),
    ("dl2023.h2oloo-zeroshot1", (0.481175, 0.405772, 0.385039, 0.306258)),
]
RECOMPUTED = [  # n, agreement, kappa, quadratic kappa, ordinal alpha (4 decimals)
    ("dl19-passage.gpt-4o.umbrela", 9260, 0.5224, 0.3157, 0.5706, 0.5538),
    ("dl19-passage.gpt-4o-mini.umbrela", 9260, 0.4700, 0.2656, 0.5418, 0.5063),
    ("dl20-passage.gpt-4o.umbrela", 11386, 0.5776, 0.3142, 0.5522, 0.4987),
    ("dl20-passage.gpt-4o-mini.umbrela", 11386, 0.5133, 0.2581, 0.5029, 0.4199),
    ("dl2023.willia-umbrela1", 4423, 0.5338, 0.2863, 0.5044, 0.4918),
    ("dl2023.h2oloo-zeroshot1", 4423, 0.5315, 0.2817, 0.4938, 0.4812),
    ("dl2023.Olz-gpt4o", 4423, 0.5132, 0.2625, 0.5069, 0.5020),
    ("dl2023.RMITIR-llama70B", 4423, 0.4931, 0.2654, 0.4887, 0.4873),
]


def _human(stem: str) -> str:
    return stem.split(".")[0] + ".human"


@pytest.fixture(scope="module")
def llm(shared_data: Path) -> Path:
    return shared_data / "llm_judgments"


def assay_json(*args: str, capsys: pytest.CaptureFixture[str]) -> dict:
    """Run the CLI in this process (the subprocess door is tested below)."""
    from assay.cli import main

    with pytest.raises(SystemExit) as stop:
        main([*args, "--format", "json"])
    out = capsys.readouterr()
    assert stop.value.code == 0, out.err
    return json.loads(out.out)


def test_cli_door_in_a_subprocess(llm: Path, tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "agree"]
    cmd += [str(llm / "dl19-passage.human.qrels"), str(llm / "dl19-passage.gpt-4o.umbrela.qrels")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Cohen's kappa:               0.3157" in proc.stdout
    assert "pairs in common: 9260" in proc.stdout


@pytest.mark.parametrize(("model", "human", "kappa", "agr"), WEBIS)
def test_webis_published_kappa_and_agreement(
    llm: Path, model: str, human: str, kappa: float, agr: float, report_figure, capsys
) -> None:
    out = assay_json(
        "judge", "agree", str(llm / f"{human}.qrels"), str(llm / f"{model}.qrels"), capsys=capsys
    )
    assert round(out["cohen_kappa"], 3) == kappa
    assert round(out["accuracy"], 3) == agr
    report_figure(f"judge agree {model}: kappa {out['cohen_kappa']:.3f}, agr {out['accuracy']:.3f}")


@pytest.mark.parametrize(("model", "alphas"), LLMJUDGE)
def test_llmjudge_published_ordinal_alpha(llm: Path, model: str, alphas: tuple) -> None:
    human = llm / "dl2023.human.qrels"
    full = agreement(human, llm / f"{model}.qrels", max_grade=3)
    assert round(full.krippendorff_alpha["ordinal"], 6) == alphas[0]
    for threshold, published in zip((1, 2, 3), alphas[1:], strict=True):
        b = agreement(human, llm / f"{model}.qrels", max_grade=3, threshold=threshold).binary
        assert round(b["krippendorff_alpha"], 6) == published


@pytest.mark.parametrize(("model", "n", "agr", "kappa", "qwk", "alpha"), RECOMPUTED)
def test_recomputed_table(
    llm: Path, model: str, n: int, agr: float, kappa: float, qwk: float, alpha: float
) -> None:
    r = agreement(llm / f"{_human(model)}.qrels", llm / f"{model}.qrels", max_grade=3)
    assert r.n == n and r.only_reference == 0 and r.only_candidate == 0
    assert round(r.accuracy, 4) == agr
    assert round(r.cohen_kappa, 4) == kappa
    assert round(r.weighted_kappa["quadratic"], 4) == qwk
    assert round(r.krippendorff_alpha["ordinal"], 4) == alpha


def test_rmit_clipping_is_a_reported_policy(llm: Path) -> None:
    r = agreement(llm / "dl2023.human.qrels", llm / "dl2023.RMITIR-llama70B.qrels", max_grade=3)
    assert r.policy["clipped_labels"] == 2
    assert r.confusion["labels"] == [0, 1, 2, 3]
    raw = agreement(llm / "dl2023.human.qrels", llm / "dl2023.RMITIR-llama70B.qrels")
    assert raw.confusion["labels"] == [0, 1, 2, 3, 5]


def test_published_confusion_matrix(llm: Path) -> None:
    r = agreement(llm / "dl19-passage.human.qrels", llm / "dl19-passage.gpt-4o.umbrela.qrels")
    assert r.confusion["counts"] == [
        [2936, 1706, 440, 76],
        [184, 948, 346, 123],
        [76, 519, 662, 547],
        [88, 162, 156, 291],
    ]
    # per-grade precision and recall read off the same matrix
    assert r.per_grade["3"]["recall"] == pytest.approx(291 / 697)
    assert r.per_grade["0"]["precision"] == pytest.approx(2936 / (2936 + 184 + 76 + 88))


def test_human_label_distribution_of_dl2023(llm: Path) -> None:
    r = agreement(llm / "dl2023.human.qrels", llm / "dl2023.human.qrels")
    assert [r.per_grade[g]["reference"] for g in "0123"] == [2005, 1233, 808, 377]
    assert r.cohen_kappa == pytest.approx(1.0)
