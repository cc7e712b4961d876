"""No import loop between the top-level units of assay (issue 22, item 5).

A unit is a top-level package (``assay.metrics``) or module (``assay/core/errors.py``)
of ``src/assay``. Every ``import`` and ``from ... import`` counts, wherever it
is written (module level or inside a function), because a function-level
import still makes the importing unit depend on the imported one. Imports
under ``if TYPE_CHECKING:`` are left out: they never execute and only serve
type annotations. The graph must have no cycle; a failure prints the edges
(file:line) of each strongly connected component.

Data flows one way: inputs (judgments, runs, corpora) -> systems -> metrics ->
procedures -> results -> store and reports -> CLI.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"

Edges = dict[str, dict[str, list[str]]]


def _units() -> set[str]:
    return {p.stem if p.is_file() else p.name for p in SRC.iterdir() if _is_unit(p)}


def _is_unit(path: Path) -> bool:
    if path.is_dir():
        return (path / "__init__.py").exists()
    return path.suffix == ".py" and path.name != "__init__.py"


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Line numbers of statements under ``if TYPE_CHECKING:`` (never executed)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    if hasattr(sub, "lineno"):
                        lines.add(sub.lineno)
    return lines


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _targets(node: ast.Import | ast.ImportFrom, path: Path) -> list[str]:
    """Absolute dotted names an import statement may load."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = _module_name(path)
        if path.name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def import_graph() -> Edges:
    """``{unit: {imported unit: ["file:line", ...]}}`` over every non-TYPE_CHECKING import."""
    units = _units()
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        if len(name) < 2:  # assay/__init__.py: the public facade, not a unit
            continue
        source = name[1]
        tree = ast.parse(path.read_text("utf-8"))
        skipped = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skipped:
                continue
            for target in _targets(node, path):
                parts = target.split(".")
                if len(parts) < 2 or parts[0] != "assay" or parts[1] not in units:
                    continue
                if parts[1] != source:
                    where = f"{path.relative_to(SRC.parent).as_posix()}:{node.lineno}"
                    if where not in edges[source][parts[1]]:
                        edges[source][parts[1]].append(where)
    return edges


def strongly_connected(edges: Edges) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(edges) | {t for targets in edges.values() for t in targets})

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def describe(edges: Edges, components: list[list[str]]) -> str:
    """Each component and the edges (file:line) that close it."""
    out = []
    for component in components:
        out.append(f"import loop of {len(component)} units: {', '.join(component)}")
        for a in component:
            for b in sorted(edges.get(a, {})):
                if b in component:
                    out.append(f"  {a} -> {b}: {', '.join(edges[a][b])}")
    return "\n".join(out)


#: Bottom modules: every layer may import them, they import only each other.
FOUNDATION = {
    "_facade",
    "core",
    "io",
}


def test_the_graph_sees_function_level_imports() -> None:
    """The walker counts an import written inside a function (a known one)."""
    edges = import_graph()
    assert "cli" in edges and "procedures" in edges["cli"]
    # only the entry point (`python -m assay`) may import the CLI
    assert [unit for unit, targets in edges.items() if "cli" in targets] == ["__main__"]


def test_no_import_loop_between_top_level_units() -> None:
    edges = import_graph()
    components = strongly_connected(edges)
    assert not components, "\n" + describe(edges, components)


def test_foundation_modules_import_only_foundation_modules() -> None:
    """Shared small pieces (hashing, bounds, policy types, CSV, words...) sit at the bottom."""
    edges = import_graph()
    upward = {
        f"{a} -> {b}: {', '.join(edges[a][b])}"
        for a in FOUNDATION
        for b in edges.get(a, {})
        if b not in FOUNDATION
    }
    assert not upward, "\n".join(sorted(upward))


#: The style rule: a module stays under this many lines (split it along a seam).
MAX_MODULE_LINES = 500

#: Modules allowed over the limit for now, each with its reason (to be emptied).
LONG_MODULES: dict[str, str] = {}


def module_lines(root: Path = SRC) -> dict[str, int]:
    """``{path under root: line count}`` of every Python module under ``root``."""
    return {
        p.relative_to(root).as_posix(): len(p.read_text("utf-8").splitlines())
        for p in sorted(root.rglob("*.py"))
    }


def too_long(root: Path = SRC) -> dict[str, int]:
    """The modules over :data:`MAX_MODULE_LINES` that are not allow-listed."""
    return {
        name: n
        for name, n in module_lines(root).items()
        if n > MAX_MODULE_LINES and name not in LONG_MODULES
    }


def test_modules_stay_under_the_line_limit() -> None:
    """Every module of src/assay has at most MAX_MODULE_LINES lines, or a listed reason."""
    over = too_long()
    assert not over, (
        f"modules over {MAX_MODULE_LINES} lines (split them along a seam, re-exporting "
        f"what moved): {over}"
    )


def test_the_long_module_allow_list_is_not_stale() -> None:
    """An allow-listed module back within the limit (or gone) leaves the list."""
    lines = module_lines()
    stale = sorted(name for name in LONG_MODULES if lines.get(name, 0) <= MAX_MODULE_LINES)
    assert not stale, f"remove from LONG_MODULES (now within {MAX_MODULE_LINES} lines): {stale}"
    assert all(reason.strip() for reason in LONG_MODULES.values())


def test_the_line_limit_flags_one_line_over(tmp_path: Path) -> None:
    """A module of MAX_MODULE_LINES lines passes, one more line fails, wherever it sits."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "at_limit.py").write_text("x = 1\n" * MAX_MODULE_LINES, "utf-8")
    (tmp_path / "pkg" / "over.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1), "utf-8")
    assert too_long(tmp_path) == {"pkg/over.py": MAX_MODULE_LINES + 1}
