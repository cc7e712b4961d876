"""Render any saved result file (evaluation, comparison, answers, gate, verify) again.

Result files are self-describing (``kind`` and ``schema_version``), so a report
can be produced from the file alone, in any format its kind supports.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from assay.errors import InputError, Problem, UsageError

#: Formats each kind of result can be rendered in.
FORMATS_BY_KIND: dict[str, tuple[str, ...]] = {
    "evaluation": ("table", "json", "csv", "markdown"),
    "comparison": ("table", "json", "csv", "markdown", "html"),
    "answers": ("table", "json", "csv", "markdown"),
    "gate": ("table", "json", "markdown", "junit"),
    "verify": ("table", "json"),
    "matrix": ("table", "json", "markdown", "html"),
}


def read_result_file(path: str | Path) -> Any:
    """Load a result file into its model; errors name the file, line and field."""
    from pydantic import ValidationError

    from assay.store.api import load_result

    p = Path(path)
    if not p.is_file():
        raise UsageError(f"result file not found: {p}")
    try:
        text = p.read_text(encoding="utf-8-sig")
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(p), None, f"not UTF-8 text: {exc.reason}")]) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            [
                Problem(
                    str(p),
                    exc.lineno,
                    f"not a JSON result file: {exc.msg}",
                    hint="write result files with --format json -o FILE.json",
                )
            ]
        ) from None
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in FORMATS_BY_KIND:
        raise InputError(
            [
                Problem(
                    str(p),
                    1,
                    f"unknown result kind {kind!r}",
                    field="kind",
                    hint=f"an assay result has kind one of {', '.join(FORMATS_BY_KIND)}",
                )
            ]
        )
    try:
        return load_result(data)
    except ValidationError as exc:
        problems = [
            Problem(
                str(p),
                None,
                err.get("msg", "invalid value"),
                field=".".join(str(x) for x in err.get("loc", ())) or None,
            )
            for err in exc.errors()[:20]
        ]
        raise InputError(problems) from None


def render(result: Any, fmt: str, *, width: int = 120) -> str:
    """Render ``result`` (any result model) in ``fmt`` as text."""
    kind = getattr(result, "kind", None)
    allowed = FORMATS_BY_KIND.get(str(kind), ())
    if fmt not in allowed:
        raise UsageError(
            f"a {kind} result renders as {', '.join(allowed) or 'nothing'}; not {fmt!r}"
        )
    if fmt == "json":
        return result.model_dump_json(indent=2) + "\n"
    if fmt == "table":
        return _terminal_text(result, width)
    if kind == "evaluation":
        from assay.report import evaluation as rep

        return rep.render_csv(result) if fmt == "csv" else rep.render_markdown(result)
    if kind == "comparison":
        from assay.report.compare_csv import render_csv
        from assay.report.compare_html import render_html
        from assay.report.compare_markdown import render_markdown

        return {"csv": render_csv, "markdown": render_markdown, "html": render_html}[fmt](result)
    if kind == "answers":
        from assay.report.answers_csv import answers_csv
        from assay.report.answers_markdown import answers_markdown

        return answers_csv(result) if fmt == "csv" else answers_markdown(result)
    if kind == "matrix":
        from assay.report.matrix_html import render_html as matrix_html
        from assay.report.matrix_markdown import render_markdown as matrix_markdown

        return matrix_html(result) if fmt == "html" else matrix_markdown(result)
    from assay.report.gate_junit import render_junit
    from assay.report.gate_markdown import render_markdown as gate_markdown

    return render_junit(result) if fmt == "junit" else gate_markdown(result)


def _terminal_text(result: Any, width: int) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False)
    print_terminal(result, console)
    return buf.getvalue()


def print_terminal(result: Any, console: Any) -> None:
    """Print ``result`` with rich to ``console`` (the ``table`` format)."""
    kind = result.kind
    if kind == "evaluation":
        from assay.report.evaluation import render_terminal

        render_terminal(result, console)
    elif kind == "comparison":
        from assay.report.compare_terminal import render_terminal

        render_terminal(result, console)
    elif kind == "answers":
        from assay.report.answers_terminal import print_answers

        print_answers(result, console)
    elif kind == "gate":
        from assay.report.gate_terminal import render_terminal

        render_terminal(result, console)
    elif kind == "matrix":
        from assay.report.matrix_terminal import render_terminal

        render_terminal(result, console)
    else:
        from assay.report.gate_terminal import render_verify_terminal

        render_verify_terminal(result, console)
