"""The public API is exactly what ``assay.__all__`` lists, and importing it is cheap."""

from __future__ import annotations

import subprocess
import sys

import assay

EXPECTED = [
    "AssayError",
    "EvaluationResult",
    "InputError",
    "JudgmentSet",
    "Measure",
    "Run",
    "UsageError",
    "__version__",
    "evaluate",
    "load_judgments",
    "load_run",
    "parse_measure",
]


def test_all_is_pinned() -> None:
    assert sorted(assay.__all__) == sorted(EXPECTED)


def test_every_public_name_resolves() -> None:
    for name in assay.__all__:
        assert getattr(assay, name) is not None, name


def test_unknown_attribute_raises() -> None:
    try:
        assay.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_import_is_light() -> None:
    """`import assay` and the CLI's start-up load neither numpy nor pandas."""
    code = (
        "import sys, assay, assay.cli.app;"
        "heavy = [m for m in ('numpy', 'pandas', 'scipy', 'sklearn', 'plotly', 'sqlalchemy')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
