"""PythonSystem and load_function: specs, result shapes and errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from _tables import table_factory

from assay.core.errors import UsageError
from assay.systems.base import Hit, SystemError_
from assay.systems.python import PythonSystem, load_function

from_config = table_factory("python")


@pytest.fixture()
def user_file(data_dir: Path) -> Path:
    return data_dir / "systems" / "user_search.py"


def test_file_spec_pairs(user_file: Path) -> None:
    system = PythonSystem(load_function(f"{user_file}:search"), spec="s")
    assert system.search("two words", 2) == [Hit("d1", 2.0), Hit("d2", 1.0)]
    assert system.config["source"].startswith("sha256:")


def test_module_spec_relative_to_base_dir(user_file: Path, monkeypatch) -> None:
    monkeypatch.chdir(user_file.parent)
    fn = load_function("user_search:ids_only")
    assert fn("q", 1) == ["d3"]


def test_from_config_passes_params(user_file: Path) -> None:
    table = {"function": "user_search.py:with_params", "params": {"boost": 3.0}}
    system = from_config("p", table, corpus=None, base_dir=user_file.parent)
    assert system.search("q", 5) == [Hit("d2", 3.0)]
    assert system.config["params"] == {"boost": 3.0}


@pytest.mark.parametrize(
    ("attr", "message"),
    [("nothing_here", "has no attribute"), ("NOT_CALLABLE", "not callable")],
)
def test_bad_attribute(user_file: Path, attr: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_function(f"{user_file}:{attr}")


def test_missing_module_and_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no module named"):
        load_function("assay_no_such_module_xyz:search")
    with pytest.raises(UsageError, match="not found"):
        load_function(f"{tmp_path / 'absent.py'}:search")
    with pytest.raises(UsageError, match="function: is required"):
        from_config("p", {}, corpus=None, base_dir=tmp_path)


def test_bad_return_value_is_a_system_error() -> None:
    system = PythonSystem(lambda q, k: None, spec="x:y")
    with pytest.raises(SystemError_, match="returned NoneType"):
        system.search("q", 3)


def test_file_spec_imports_siblings_as_the_module_spec_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``file.py:function`` has the file's folder on the import path, like ``module:function``
    run from that folder: a sibling module resolves in both forms."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "mysearch_helpers_16.py").write_text("IDS = ['d7', 'd8']\n", encoding="utf-8")
    (folder / "mysearch_16.py").write_text(
        "from mysearch_helpers_16 import IDS\n\ndef search(query, k):\n    return IDS[:k]\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)  # not the file's folder
    by_file = load_function("app/mysearch_16.py:search")
    assert by_file("q", 1) == ["d7"]
    assert str(folder) not in __import__("sys").path  # the import path is restored
    monkeypatch.chdir(folder)
    assert load_function("mysearch_16:search")("q", 2) == by_file("q", 2)
