"""One error tree rooted at AssayError: every type exported, each mapped to its exit code."""

from __future__ import annotations

import inspect

import pytest

import assay
import assay.core.errors as errors
from assay.cli.app import flags, main


def test_every_error_type_is_in_the_tree_and_exported() -> None:
    declared = {
        obj
        for _, obj in inspect.getmembers(errors, inspect.isclass)
        if issubclass(obj, Exception)
        and obj.__module__ == errors.__name__
        and not obj.__name__.startswith("_")
    }
    assert declared == set(errors.ERROR_TYPES)
    for cls in declared:
        assert issubclass(cls, assay.AssayError)
        assert getattr(assay, cls.__name__) is cls
        assert cls.__name__ in errors.__doc__  # described in the one docstring


def test_system_errors_join_the_tree() -> None:
    from assay.systems.base import SystemError_

    assert SystemError_ is assay.SystemCallError


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (assay.AssayError("x"), 2),
        (assay.UsageError("`missing` must be one of zero, skip", "missing"), 2),
        (assay.InputError([assay.Problem("f.jsonl", 3, "blank line")]), 2),
        (assay.SystemCallError("the system timed out"), 1),
    ],
)
def test_cli_maps_each_error_to_its_exit_code(
    exc: Exception, code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    app_module = sys.modules["assay.cli.app"]  # assay.cli.app the attribute is the Typer app

    def fake_app(**_: object) -> None:
        raise exc

    app_module._load_commands()  # before the command is replaced
    monkeypatch.setattr(app_module, "_command", lambda: fake_app)
    with pytest.raises(SystemExit) as done:
        main(["evaluate"])
    assert done.value.code == code == type(exc).exit_code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err


def test_library_parameters_become_flags_on_the_command_line() -> None:
    assert flags("`missing` must be one of zero, skip") == "--missing must be one of zero, skip"
    assert flags("pass `allow_version_mismatch` to score it") == (
        "pass --allow-version-mismatch to score it"
    )
    assert flags("`n_resamples` must be at least 1; `metrics` RR") == (
        "--resamples must be at least 1; --metric RR"
    )


def test_cli_names_the_flag(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "query": "a", "relevant": {"d1": 1}}\n')
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    with pytest.raises(SystemExit) as done:
        main(["evaluate", str(qrels), str(run), "--missing", "maybe", "--no-record"])
    assert done.value.code == 2
    assert "--missing must be one of zero, skip; got 'maybe'" in capsys.readouterr().err
