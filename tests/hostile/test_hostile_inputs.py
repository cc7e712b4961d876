"""No traceback, ever: every hostile case exits 2 with a message naming the file or option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostile_cases import Case, all_cases

from assay.cli.app import main

CASES = all_cases()


def test_the_corpus_is_large() -> None:
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_exits_cleanly(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    for name, data in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{d}", str(tmp_path)) for a in case.argv]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    code = int(exc.value.code or 0)
    assert "unexpected" not in out.err and "Traceback" not in out.err, out.err
    assert code == case.code, out.err + out.out
    if case.code == 2:
        assert out.err.strip(), "an error must say what is wrong"
        if case.expect:
            assert re.search(case.expect, out.err), out.err
