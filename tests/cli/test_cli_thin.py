"""Every CLI command is thin: it parses, calls its one library procedure, renders.

A command's body (its docstring aside) is at most ``MAX_BODY`` lines; the only
names it imports from outside ``assay.cli`` are its registered procedure
(:data:`assay.procedures.registry.COMMANDS`), called exactly once, and classes
(option and result models); the procedure returns a registered result kind
unless the command is in :data:`~assay.procedures.registry.NO_RESULT`.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from pathlib import Path
from typing import Any

import pytest
import typer

from assay.procedures.registry import COMMANDS, NO_RESULT

CLI = Path(__file__).resolve().parents[2] / "src" / "assay" / "cli"
MAX_BODY = 25

#: Commands not yet thin; each names what is left. Empty when the redesign is done.
NOT_YET_THIN: dict[str, str] = {}


def _command_name(decorator: ast.expr, function: str) -> str | None:
    """``judge_app.command('llm')`` -> ``judge llm``; ``app.command()`` -> the function's."""
    if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)):
        return None
    if decorator.func.attr != "command":
        return None
    group = ast.unparse(decorator.func.value).removesuffix("_app").removesuffix("app")
    named = [a.value for a in decorator.args if isinstance(a, ast.Constant)]
    named += [k.value.value for k in decorator.keywords if k.arg == "name"]  # type: ignore[attr-defined]
    name = named[0] if named else function.replace("_", "-")
    return f"{group} {name}" if group else name


def _commands() -> dict[str, tuple[Path, ast.FunctionDef]]:
    found = {}
    for path in sorted(CLI.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    name = _command_name(decorator, node.name)
                    if name:
                        found[name] = (path, node)
    return found


def _typer_commands() -> set[str]:
    from assay.cli.app import _load_commands, app

    _load_commands()

    def walk(group: Any, prefix: str) -> set[str]:
        names = set()
        for name, command in group.commands.items():
            full = f"{prefix}{name}"
            if hasattr(command, "commands"):  # typer vendors its own click
                names |= walk(command, full + " ")
            else:
                names.add(full)
        return names

    return walk(typer.main.get_command(app), "")  # type: ignore[arg-type]


COMMANDS_FOUND = _commands()


def test_every_command_is_found_and_registered() -> None:
    assert set(COMMANDS_FOUND) == _typer_commands()
    assert set(COMMANDS) == set(COMMANDS_FOUND)
    assert set(NOT_YET_THIN) <= set(COMMANDS)


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def _outside_imports(node: ast.FunctionDef) -> dict[str, str]:
    """Names the body imports from outside assay.cli: local name -> "module:name"."""
    names = {}
    for child in ast.walk(node):
        if isinstance(child, ast.ImportFrom) and not (child.module or "").startswith("assay.cli"):
            for alias in child.names:
                names[alias.asname or alias.name] = f"{child.module}:{alias.name}"
        elif isinstance(child, ast.Import):
            for alias in child.names:
                names[alias.asname or alias.name] = alias.name
    return names


def thin_problems(command: str) -> list[str]:
    """What keeps ``command``'s body from being thin (empty when it is)."""
    path, node = COMMANDS_FOUND[command]
    body = _body(node)
    problems = []
    lines = body[-1].end_lineno - body[0].lineno + 1 if body else 0  # type: ignore[operator]
    if lines > MAX_BODY:
        problems.append(f"{path.name}:{node.name} body is {lines} lines (at most {MAX_BODY})")
    procedure = COMMANDS[command]
    imported = _outside_imports(node)
    helpers = [
        f"{local} ({origin})"
        for local, origin in imported.items()
        if origin != procedure and not local[:1].isupper()
    ]
    if helpers:
        problems.append(f"{node.name} imports library helpers: {', '.join(helpers)}")
    locals_ = [local for local, origin in imported.items() if origin == procedure]
    calls = [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in locals_
    ]
    if len(calls) != 1:
        problems.append(f"{node.name} calls {procedure} {len(calls)} times (once, please)")
    return problems


@pytest.mark.parametrize("command", sorted(COMMANDS_FOUND))
def test_command_body_is_thin(command: str) -> None:
    problems = thin_problems(command)
    if command in NOT_YET_THIN:  # its body, or what its procedure returns, is left to do
        left = problems or (command not in NO_RESULT and _registered_kind(command) is None)
        assert left, f"`assay {command}` is thin now: take it out of NOT_YET_THIN"
        pytest.xfail(f"`assay {command}`: {NOT_YET_THIN[command]}")
    assert not problems, "\n".join(problems)


def _registered_kind(command: str) -> str | None:
    """The RESULT_MODELS entry ("module:Class") ``command``'s procedure returns, if any."""
    from assay.results.models import RESULT_MODELS

    module, name = COMMANDS[command].split(":")
    if importlib.util.find_spec(module) is None:
        return None
    function = inspect.unwrap(getattr(importlib.import_module(module), name))
    returned = str(inspect.signature(function).return_annotation)  # a string: annotations
    kinds = {v.split(":")[1]: v for v in RESULT_MODELS.values()}  # are postponed
    registered = [n.strip() for n in returned.split("|") if n.strip() in kinds]
    return kinds[registered[0]] if registered else None


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - NO_RESULT))
def test_procedure_returns_a_registered_result(command: str) -> None:
    from assay.results.models import ResultModel

    kind = _registered_kind(command)
    if command in NOT_YET_THIN and kind is None:
        pytest.xfail(f"`assay {command}`: {NOT_YET_THIN[command]}")
    assert kind, f"{COMMANDS[command]} does not return a registered result"
    module, cls = kind.split(":")
    assert issubclass(getattr(importlib.import_module(module), cls), ResultModel)
