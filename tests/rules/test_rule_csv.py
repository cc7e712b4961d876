"""One CSV reader: corpora and known-item judgments report the same CSV faults alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.corpora.load import load_corpus
from assay.judgments.load import load_judgments

HEADER = "question_id,question,expected_id"
ROW = "q1,what,d1"


def _messages(path: Path) -> dict[int | None, str]:
    with pytest.raises(InputError) as exc:
        if path.name.startswith("corpus"):
            load_corpus(path)
        else:
            load_judgments(path, format="csv")
    return {p.line: p.message for p in exc.value.problems}


@pytest.mark.parametrize("name", ["corpus.csv", "questions.csv"])
def test_same_faults_same_messages(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(f"{HEADER}\n{ROW}\n{ROW},extra\n")
    assert _messages(path)[3] == "expected 3 fields, found 4"
    path.write_text(f"{HEADER},question\n{ROW},x\n")
    assert _messages(path)[1] == "column 'question' appears twice in the header"
    path.write_text(f'{HEADER}\n{ROW}\nq2,"never closed,d2\n')
    assert _messages(path)[3].startswith("malformed CSV in the record starting here")
