"""Every result kind's formats and the renderer of each, in one table: :data:`KINDS`.

A command's ``-f``/``-o`` choices, ``assay report``, :mod:`assay.report.render`
and the docs' table of formats all read this table, so a command writes exactly
the formats ``assay report`` renders for its kind, with the same functions. A
kind missing here renders in nothing (a :class:`~assay.core.errors.UsageError` naming
the kinds there are), never through another kind's renderer.

Renderers are named ``"module:function"`` and imported when one is used (as
:data:`assay.results.files.RESULT_MODELS` names the models), so reading the table (every
command's ``--help``, ``assay --version``) loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from assay.core.errors import UsageError

#: Formats that are the table: on a terminal sized to it, elsewhere (a file) plain text.
TABLE_FORMATS = ("table", "plain")


class View(NamedTuple):
    """What a reader adds to a result to render it, beyond the format: a command's
    ``--digits`` and ``--per-query`` (an evaluation's table and Markdown) and the
    folders a matrix page reads its cases from (``assay report``: the result's own)."""

    digits: int | None = None
    per_query: bool | None = None
    folders: tuple[Path, ...] = ()


class Renderer(NamedTuple):
    """The function ``target`` (``"module:function"``), given the :class:`View` fields
    named in ``takes`` as keywords."""

    target: str
    takes: tuple[str, ...] = ()

    def load(self) -> Callable[..., Any]:
        """The function itself (its module imported now)."""
        module, name = self.target.split(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def __call__(self, result: Any, *args: Any, view: View) -> Any:
        """``function(result, *args, **the view fields it takes)``."""
        return self.load()(result, *args, **{k: getattr(view, k) for k in self.takes})


class KindFormats(NamedTuple):
    """The renderers of one result kind.

    ``table`` prints the result with rich to a console (with ``table_text``: returns
    the text printed as it is); ``text`` renders each text format; ``binary`` each
    format written as bytes, to a file only. ``pipe_width``: the table's width when
    stdout is not a terminal (a CI log), where it is not the console's own.
    """

    table: Renderer
    text: Mapping[str, Renderer]
    binary: Mapping[str, Renderer] = {}
    table_text: bool = False
    pipe_width: int | None = None

    @property
    def formats(self) -> tuple[str, ...]:
        """Every format of the kind: the table formats, then the text, then the binary."""
        return (*TABLE_FORMATS, *self.text, *self.binary)


def _r(target: str, *takes: str) -> Renderer:
    """The renderer ``target`` of :mod:`assay.report` (``"module:function"`` under it)."""
    return Renderer("assay.report." + target, takes)


JSON = _r("kinds:result_json")
HTML = _r("html.export:render_html", "folders")  # the page `assay view` serves, as one file


def _text_kind(target: str) -> KindFormats:
    """A kind whose table is plain text (the judge results): that, and JSON."""
    return KindFormats(table=_r(target), text={"json": JSON}, table_text=True)


#: Result kind -> its formats and their renderers (every kind of ``RESULT_MODELS``).
KINDS: dict[str, KindFormats] = {
    "evaluation": KindFormats(
        table=_r("evaluation:render_terminal", "digits", "per_query"),
        text={
            "json": JSON,
            "csv": _r("evaluation:render_csv"),
            "markdown": _r("evaluation:render_markdown", "digits"),
            "latex": _r("latex:render_latex_evaluation"),
            "html": HTML,
        },
        binary={"parquet": _r("evaluation:render_parquet")},
    ),
    "comparison": KindFormats(
        table=_r("compare_terminal:render_terminal"),
        text={
            "json": JSON,
            "csv": _r("compare_csv:render_csv"),
            "markdown": _r("compare_markdown:render_markdown"),
            "latex": _r("latex:render_latex_comparison"),
            "html": HTML,
        },
    ),
    "answers": KindFormats(
        table=_r("answers_terminal:print_answers"),
        text={
            "json": JSON,
            "csv": _r("answers_csv:answers_csv"),
            "markdown": _r("answers_markdown:answers_markdown"),
        },
    ),
    "gate": KindFormats(
        table=_r("gate_terminal:render_terminal"),
        text={
            "json": JSON,
            "markdown": _r("gate_markdown:render_markdown"),
            "junit": _r("gate_junit:render_junit"),
            "html": HTML,
        },
        pipe_width=120,
    ),
    "verify": KindFormats(table=_r("gate_terminal:render_verify_terminal"), text={"json": JSON}),
    "matrix": KindFormats(
        table=_r("matrix_terminal:render_terminal"),
        text={"json": JSON, "markdown": _r("matrix_markdown:render_markdown"), "html": HTML},
    ),
    "validation": KindFormats(
        table=_r("validation_terminal:print_validation"), text={"json": JSON}
    ),
    "tuning": KindFormats(
        table=_r("tune_text:render_terminal"),
        text={"json": JSON, "markdown": _r("tune_text:render_markdown"), "html": HTML},
    ),
    "history": KindFormats(
        table=_r("history_terminal:render_terminal"),
        text={"json": JSON, "html": _r("html.export:render_history_html")},
    ),
    "agreement": _text_kind("judges_text:render_agreement"),
    "calibration": _text_kind("judges_text:render_calibration"),
    "model_judgments": _text_kind("judges_text:render_judge_job"),
    "model_claims": _text_kind("judges_text:render_claims"),
    "model_answers": _text_kind("judges_text:render_answer_grades"),
    "rubric_judge": _text_kind("declared_judges_text:render_declared"),
    "pairwise_judge": _text_kind("declared_judges_text:render_declared"),
    "implicit_judgments": KindFormats(
        table=_r("implicit_terminal:render_implicit"),
        text={
            "json": JSON,
            "csv": _r("implicit_terminal:render_stats_csv"),
            "jsonl": _r("implicit_terminal:render_jsonl"),
        },
    ),
    "synthetic-queries": _text_kind("generate_text:render_queries"),
}


def result_json(result: Any) -> str:
    """The result file itself (every kind's ``json`` format)."""
    return str(result.to_json(indent=2)) + "\n"


def kind_formats(kind: str) -> KindFormats:
    """The entry of ``kind``; a UsageError naming the kinds there are for another."""
    entry = KINDS.get(str(kind))
    if entry is None:
        raise UsageError(f"no renderer for a {kind!r} result; kinds: {', '.join(KINDS)}")
    return entry


def formats_of(kind: str) -> tuple[str, ...]:
    """Every format a ``kind`` result renders in (its command's ``-f`` choices)."""
    return kind_formats(kind).formats


def all_formats(kinds: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every format some kind renders in (``assay report``'s ``-f``), each once, in order."""
    found: dict[str, None] = {}
    for kind in kinds or KINDS:
        found.update(dict.fromkeys(formats_of(kind)))
    return tuple(found)


def renderer(kind: str, fmt: str) -> tuple[Renderer, bool]:
    """The renderer of ``fmt`` for ``kind`` and whether it gives bytes; a UsageError
    naming the kind's formats when it has no such format (the table formats print:
    see :func:`print_table`)."""
    entry = kind_formats(kind)
    found = entry.text.get(fmt) or entry.binary.get(fmt)
    if found is None:
        raise UsageError(f"a {kind} result renders as {', '.join(entry.formats)}; not {fmt!r}")
    return found, fmt in entry.binary


def print_table(result: Any, console: Any, view: View | None = None) -> None:
    """Print ``result`` with rich to ``console``: its kind's table."""
    entry = kind_formats(result.kind)
    if entry.table_text:
        text = entry.table(result, view=view or View())
        console.print(text, markup=False, highlight=False, soft_wrap=True)
    else:
        entry.table(result, console, view=view or View())
