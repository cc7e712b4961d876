"""The layout rules between files (issue 36, item 4).

- No import loop between two files of assay, wherever the import is written
  (module level or inside a function; ``if TYPE_CHECKING:`` blocks left out).
- Imports of assay's own modules sit at the top of a module; the few left inside
  functions are counted against a budget that only goes down. They are the CLI's
  commands (a command's procedure loads when the command runs, so ``assay --help``
  stays light) and a handful that choose among parsers at run time.
- Few modules lie loose at the root of the package: the rest live in a folder
  named for its layer.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from test_architecture import SRC, _module_name, _targets, _type_checking_lines, strongly_connected

#: Imports of assay's own modules written inside functions (issue 36: at most 100).
MAX_FUNCTION_IMPORTS = 80

#: Modules at the root of src/assay (issue 36: at most 8).
MAX_ROOT_MODULES = 8


def _modules() -> dict[str, Path]:
    return {".".join(_module_name(p)): p for p in sorted(SRC.rglob("*.py"))}


def _resolve(target: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted import target names (the longest known prefix)."""
    parts = target.split(".")
    while parts:
        name = ".".join(parts)
        if name in modules:
            return name
        parts.pop()
    return None


def file_graph() -> dict[str, dict[str, list[str]]]:
    """``{module: {imported module: ["file:line", ...]}}`` between assay's files.

    A package's ``__init__`` is left out as a target when the importer sits inside
    that package (``from assay.corpora.load import x`` runs ``assay/corpora/__init__``
    first, a Python rule, not a dependency the code chose).
    """
    modules = _modules()
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"))
        skipped = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skipped:
                continue
            for target in _targets(node, path)[1:] or _targets(node, path):
                found = _resolve(target, modules)
                if found is None or found == name or name.startswith(found + "."):
                    continue
                where = f"{path.relative_to(SRC.parent).as_posix()}:{node.lineno}"
                if where not in edges[name][found]:
                    edges[name][found].append(where)
    return edges


def function_imports() -> list[str]:
    """``file:line`` of each import of an assay module written inside a function."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom) and any(
                    t.startswith("assay") for t in _targets(node, path)
                ):
                    found.append(f"{path.relative_to(SRC.parent).as_posix()}:{node.lineno}")
    return sorted(set(found))


def test_no_import_loop_between_files() -> None:
    edges = file_graph()
    loops = strongly_connected(edges)
    described = [
        f"{a} -> {b}: {', '.join(edges[a][b])}"
        for loop in loops
        for a in loop
        for b in edges.get(a, {})
        if b in loop
    ]
    assert not loops, "\n".join(described)


def test_the_file_graph_sees_a_known_edge() -> None:
    """The walker resolves ``from assay.x.y import name`` to the module assay.x.y."""
    edges = file_graph()
    assert "assay.runs.io" in edges["assay.procedures.sources"]


def test_imports_inside_functions_stay_within_the_budget() -> None:
    found = function_imports()
    assert len(found) <= MAX_FUNCTION_IMPORTS, (
        f"{len(found)} imports of assay modules inside functions (budget "
        f"{MAX_FUNCTION_IMPORTS}): move them to the top of the module\n" + "\n".join(found)
    )


def test_few_modules_lie_loose_at_the_root() -> None:
    loose = sorted(p.name for p in SRC.glob("*.py"))
    assert len(loose) <= MAX_ROOT_MODULES, loose
