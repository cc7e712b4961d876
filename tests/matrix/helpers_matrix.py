"""Writes a matrix file on the stub: strict/plain prompts, stub models small and timid."""

from __future__ import annotations

import shutil
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix"


def write_matrix(
    tmp: Path,
    base_url: str,
    *,
    repeats: int = 2,
    extra: str = "",
    cases: str | None = None,
    judge: bool = False,
) -> Path:
    """A matrix file in ``tmp``: strict/plain prompts, stub models small and timid."""
    shutil.copytree(EXAMPLE / "prompts", tmp / "prompts", dirs_exist_ok=True)
    (tmp / "cases.jsonl").write_text(
        cases if cases is not None else (EXAMPLE / "cases.jsonl").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    judge_table = (
        f"""
[models.judge]
base_url = "{base_url}"
model = "stub-judge"
input_price = 1.0
output_price = 1.0
"""
        if judge
        else ""
    )
    path = tmp / "matrix.toml"
    path.write_text(
        f"""
[matrix]
name = "stub-matrix"
cases = "cases.jsonl"
repeats = {repeats}
baseline = "strict/small"
{'judge = "judge"' if judge else ""}
{extra}

[prompts.strict]
file = "prompts/strict.txt"

[prompts.plain]
file = "prompts/plain.txt"

[models.small]
base_url = "{base_url}"
model = "${{STUB_SMALL}}"
api_key = "${{STUB_KEY}}"
input_price = "${{STUB_SMALL_IN}}"
output_price = 4.0

[models.timid]
base_url = "{base_url}"
model = "stub-timid"
input_price = 0.5
output_price = 1.5
{judge_table}
""",
        encoding="utf-8",
    )
    return path
