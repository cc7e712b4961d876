"""Reference pages generated from the code: the CLI, the measure registry and the schemas.

Used by the MkDocs hook (``docs/gen/hooks.py``) at build time and by
``tests/docs``, which checks that nothing is left out. Nothing here is written
by hand: every line comes from ``assay.cli.app``, ``assay.metrics.registry``,
``assay.results.models.RESULT_MODELS`` or the ``assay schema`` command when it exists.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
if str(SRC) not in sys.path:  # build against this checkout's sources
    sys.path.insert(0, str(SRC))


def _cell(text: str) -> str:
    """One Markdown table cell: line breaks joined; pipes, tags and asterisks shown as typed."""
    text = " ".join(str(text).split())
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), ("|", "\\|"), ("*", "\\*")):
        text = text.replace(raw, escaped)
    return text


def _code(text: str) -> str:
    """Inline code that survives backticks inside (fenced with two when needed)."""
    text = " ".join(str(text).split())
    return f"`` {text} ``" if "`" in text else f"`{text}`"


# --------------------------------------------------------------------------- CLI


def cli_root() -> Any:
    """The click command tree of ``assay`` with every command module loaded.

    Uses the app's own builder (help in plain words) where it has one, else typer's.
    """
    app_module = importlib.import_module("assay.cli.app")

    load = getattr(app_module, "_load_commands", None)
    if load is not None:
        load()
    build = getattr(app_module, "_command", None)
    if build is not None:
        return build()
    from typer.main import get_command

    return get_command(app_module.app)


def iter_commands(group: Any, ctx: Any, path: tuple[str, ...] = ()) -> Iterator[tuple]:
    """(path, command, context) for every command and group under ``group``, sorted."""
    for name in sorted(getattr(group, "commands", {})):
        command = group.commands[name]
        if getattr(command, "hidden", False):
            continue
        sub_ctx = command.make_context(name, [], parent=ctx, resilient_parsing=True)
        yield (*path, name), command, sub_ctx
        yield from iter_commands(command, sub_ctx, (*path, name))


def cli_markdown() -> str:
    """Every command: usage, help, and one table row per argument and option."""
    root = cli_root()
    ctx = root.make_context("assay", [], resilient_parsing=True)
    out = [
        "Every command takes `-h`/`--help`. Options with a default show it in brackets.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    commands = list(iter_commands(root, ctx))
    for path, command, _ in commands:
        anchor = "assay-" + "-".join(path)
        summary = (command.help or "").strip().split("\n\n")[0]
        out.append(f"| [`assay {' '.join(path)}`](#{anchor}) | {_cell(summary)} |")
    for path, command, sub_ctx in commands:
        out += ["", f"## assay {' '.join(path)} {{#{'assay-' + '-'.join(path)}}}", ""]
        out += ["```text", command.get_usage(sub_ctx).strip(), "```", ""]
        paragraphs = (command.help or "").strip().split("\n\n")
        out.append("\n\n".join(_cell(p) for p in paragraphs if p.strip()))
        rows = [p.get_help_record(sub_ctx) for p in command.params]
        help_option = command.get_help_option(sub_ctx)
        if help_option is not None:
            rows.append(help_option.get_help_record(sub_ctx))
        rows = [r for r in rows if r]
        if rows:
            out += ["", "| argument or option | description |", "|---|---|"]
            out += [f"| {_code(name)} | {_cell(text)} |" for name, text in rows]
    return "\n".join(out) + "\n"


def cli_option_names() -> dict[str, set[str]]:
    """Command path -> every option spelling and argument name its help shows (for tests).

    Hidden options (the deprecated spellings kept one release) are left out, as
    the help and the reference leave them out.
    """
    root = cli_root()
    ctx = root.make_context("assay", [], resilient_parsing=True)
    names: dict[str, set[str]] = {}
    for path, command, _ in iter_commands(root, ctx):
        spelled: set[str] = set()
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            if getattr(param, "param_type_name", "") == "argument":
                spelled.add((param.name or "").upper())
            else:
                spelled.update(param.opts)
                spelled.update(param.secondary_opts)
        names[" ".join(path)] = spelled
    return names


# --------------------------------------------------------------------------- measures


def measures_markdown() -> str:
    """The measure registry as a table: usage, example, aliases, trec_eval names, formula."""
    from assay.metrics.registry import FAMILY_LIST, PREFERENCE_MEASURES

    out = [
        "| family | example | aliases | trec_eval | aggregate | formula |",
        "|---|---|---|---|---|---|",
    ]
    for fam in FAMILY_LIST:
        aliases = ", ".join(_code(a) for a in fam.aliases) or "-"
        trec = ", ".join(_code(t) for t, _ in fam.trec) or "-"
        example = _code(fam.example) if fam.example else "-"
        out.append(
            f"| {_code(fam.usage)} | {example} | {aliases} | {trec} | {fam.aggregate} "
            f"| {_cell(fam.doc)} |"
        )
    out += [
        "",
        "## trec_eval preference measures",
        "",
        "Scored by `assay trec-eval -R prefs` or `-R qrels_prefs` from preference judgments.",
        "",
        "| trec_eval | aggregate | definition |",
        "|---|---|---|",
    ]
    out += [f"| {_code(p.name)} | {p.aggregate} | {_cell(p.doc)} |" for p in PREFERENCE_MEASURES]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- schemas


def result_schemas_markdown() -> str:
    """One section per registered result kind with the JSON Schema of its pydantic model."""
    from assay.results.models import RESULT_MODELS, result_model

    out = []
    for kind in sorted(RESULT_MODELS):
        model = result_model(kind)
        doc = (model.__doc__ or "").strip().split("\n\n")[0]
        version = model.model_fields["schema_version"].default
        out += [
            f"### `{kind}`",
            "",
            f"{_cell(doc)} Model: `{RESULT_MODELS[kind].replace(':', '.')}`, "
            f"`schema_version` {version}.",
            "",
            f'??? note "JSON Schema of a {kind} result"',
            "",
            "    ```json",
        ]
        text = json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False)
        out += ["    " + line for line in text.splitlines()]
        out += ["    ```", ""]
    return "\n".join(out) + "\n"


def result_formats_markdown() -> str:
    """Each result kind with every format it renders in (its command's ``-f``, and
    ``assay report``'s for a file of that kind), from ``assay.report.kinds.KINDS``."""
    from assay.cli.common import SUFFIX_FORMATS
    from assay.report.kinds import KINDS

    suffixes: dict[str, list[str]] = {"table": [], "plain": [".txt"]}
    for suffix, fmt in SUFFIX_FORMATS.items():
        if fmt != "plain":
            suffixes.setdefault(fmt, []).append(suffix)
    out = ["| result kind | formats (`-f`), with the `-o` suffixes naming them |", "|---|---|"]
    for kind, entry in KINDS.items():
        cells = [
            f"`{fmt}`" + (f" ({', '.join(suffixes[fmt])})" if suffixes.get(fmt) else "")
            for fmt in entry.formats
        ]
        out.append(f"| `{kind}` | {', '.join(cells)} |")
    return "\n".join(out) + "\n"


def config_schema(kind: str = "config") -> dict[str, Any] | None:
    """The JSON Schema ``assay schema KIND`` prints, or None where the command is absent."""
    root = cli_root()
    schema = getattr(root, "commands", {}).get("schema")
    if schema is None:
        return None
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            root(["schema", kind], standalone_mode=False, prog_name="assay")
        except SystemExit as exc:  # pragma: no cover - a failing command
            if exc.code:
                raise
    return json.loads(buffer.getvalue())


def config_schema_markdown() -> str:
    """The configuration's JSON Schema as a code block, or a sentence saying it is not there."""
    schema = config_schema()
    if schema is None:
        return (
            "This version of assay has no `assay schema config` command yet: the keys of "
            "`assay.toml` are listed in the workflow pages.\n"
        )
    text = json.dumps(schema, indent=2, ensure_ascii=False)
    return "```json\n" + text + "\n```\n"


# --------------------------------------------------------------------------- API


def api_targets() -> dict[str, list[str]]:
    """Module -> the public names of ``assay.__all__`` it defines, in ``__all__`` order."""
    import assay

    lazy = getattr(assay, "_LAZY", {})
    out: dict[str, list[str]] = {}
    for name in assay.__all__:
        if name.startswith("_"):
            continue
        module = lazy.get(name) or getattr(getattr(assay, name), "__module__", "assay")
        out.setdefault(module, []).append(name)
    return out


def api_markdown() -> str:
    """One mkdocstrings directive per public name, grouped under the module defining it."""
    out = []
    for module in sorted(api_targets()):
        out += [f"## `{module}`", ""]
        for name in api_targets()[module]:
            out += [f"::: {module}.{name}", ""]
    return "\n".join(out)


def matrix_schema_markdown() -> str:
    """The matrix file's JSON Schema as a code block."""
    text = json.dumps(config_schema("matrix"), indent=2, ensure_ascii=False)
    return "```json\n" + text + "\n```\n"


GENERATORS = {
    "api": api_markdown,
    "cli": cli_markdown,
    "measures": measures_markdown,
    "result-schemas": result_schemas_markdown,
    "result-formats": result_formats_markdown,
    "config-schema": config_schema_markdown,
    "matrix-schema": matrix_schema_markdown,
}


def expand(markdown: str) -> str:
    """``markdown`` with every ``<!-- generated: NAME -->`` marker replaced by its page part."""
    for name, make in GENERATORS.items():
        marker = f"<!-- generated: {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
