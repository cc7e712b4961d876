"""One table of result kinds, their formats and renderers (``assay.report.kinds.KINDS``).

Every registered result kind has an entry; each renderer it names exists and renders
that kind's result file; a kind or a format the table does not hold is a UsageError
naming the choices, never another kind's renderer.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from assay.cli.common import SUFFIX_FORMATS
from assay.core.errors import UsageError
from assay.report.kinds import KINDS, TABLE_FORMATS, all_formats, formats_of, renderer
from assay.report.render import FORMATS_BY_KIND, render, render_bytes
from assay.results.models import RESULT_MODELS, read_result_file

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "results"
#: One result file of each kind (written by an earlier release: they still render).
FIXTURE_OF = {
    "synthetic-queries": "synthetic_queries.json",
    **{k: f"{k}.json" for k in RESULT_MODELS if k != "synthetic-queries"},
}


def test_every_registered_kind_has_an_entry_and_no_other() -> None:
    assert set(KINDS) == set(RESULT_MODELS) == set(FORMATS_BY_KIND)
    for kind, entry in KINDS.items():
        formats = entry.formats
        assert formats[:2] == TABLE_FORMATS and "json" in formats, kind
        assert len(set(formats)) == len(formats), kind
        assert not set(entry.text) & set(entry.binary), kind


def test_every_format_has_a_suffix_for_o() -> None:
    """Each format a kind renders can be named by an ``-o`` suffix (``table`` is .txt)."""
    named = set(SUFFIX_FORMATS.values())
    for fmt in all_formats():
        assert fmt == "table" or fmt in named, fmt


def test_every_renderer_is_a_function_of_the_report_package() -> None:
    for kind, entry in KINDS.items():
        for found in (entry.table, *entry.text.values(), *entry.binary.values()):
            assert found.target.startswith("assay.report."), (kind, found.target)
            function = found.load()
            assert callable(function), (kind, found.target)
            params = inspect.signature(function).parameters
            assert set(found.takes) <= set(params), (kind, found.target, found.takes)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_renders_in_each_of_its_formats(kind: str) -> None:
    result = read_result_file(FIXTURES / FIXTURE_OF[kind])
    assert result.kind == kind
    for fmt in formats_of(kind):
        if fmt in KINDS[kind].binary:
            assert render_bytes(result, fmt)
        else:
            assert render(result, fmt).strip(), (kind, fmt)


def test_a_format_a_kind_lacks_is_refused_with_its_choices() -> None:
    result = read_result_file(FIXTURES / "verify.json")
    with pytest.raises(UsageError, match=r"a verify result renders as table, plain, json; not"):
        render(result, "junit")
    with pytest.raises(UsageError, match="verify result renders as"):
        renderer("verify", "parquet")
    with pytest.raises(UsageError, match="render_bytes"):
        render(read_result_file(FIXTURES / "evaluation.json"), "parquet")


def test_an_unknown_kind_falls_through_to_nothing() -> None:
    """A result of a kind not in the table is refused in every format (the table too),
    naming the kinds there are: never drawn by another kind's renderer."""
    stray = read_result_file(FIXTURES / "evaluation.json").model_copy(update={"kind": "stray"})
    for fmt in ("table", "plain", "json", "csv", "html"):
        with pytest.raises(UsageError, match=r"no renderer for a .stray. result; kinds: eval"):
            render(stray, fmt)
    with pytest.raises(UsageError, match="'stray'"):
        render_bytes(stray, "parquet")


def test_report_offers_every_format_some_kind_renders() -> None:
    import typer

    from assay.cli.app import _load_commands, app

    _load_commands(["report"])
    command = typer.main.get_command(app).commands["report"]  # type: ignore[attr-defined]
    fmt = next(p for p in command.params if "--format" in getattr(p, "opts", []))
    for name in all_formats():
        assert name in (fmt.help or ""), name
