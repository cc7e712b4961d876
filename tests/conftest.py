"""Shared fixtures: paths to bundled fixtures and to the shared real data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

try:
    # rouge-score loads absl, whose log handler keeps the sys.stderr of its first import and
    # closes it when any later logging.config call (uvicorn's, in the model stub) shuts the
    # handlers down; under pytest that stream is a capture file, and closing it loses stderr.
    import absl.logging

    absl.logging.get_absl_handler().python_handler.stream = sys.__stderr__
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: fixtures written for this project."""
    return DATA


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data: real evaluation data, read in place; skip where absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared/data is not present (real-data tests run in the project workspace)")
    return SHARED


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    """examples/: the bundled examples."""
    return ROOT / "examples"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Commands record results and cache runs by default: keep that out of the repository."""
    base = tmp_path_factory.getbasetemp() / "assay-state"
    base.mkdir(exist_ok=True)
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{base / 'history.db'}")
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(base / "cache"))
    yield


_FIGURES: list[str] = []


@pytest.fixture
def report_figure():
    """Record a measured figure (e.g. a baseline's nDCG@10) for the end-of-run summary."""
    return _FIGURES.append


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Print the figures tests measured (baseline scores on real data)."""
    if _FIGURES:
        terminalreporter.section("measured figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)
