"""The providers layer sits low: it imports only assay.core, assay.io, assay._facade and
itself, wherever the import is written (module level, inside a function, under
``if TYPE_CHECKING:``), so systems, judges and procedures may all build on it."""

from __future__ import annotations

import ast
from pathlib import Path

import assay.providers

PROVIDERS = Path(assay.providers.__file__).resolve().parent
ALLOWED = ("assay.core", "assay.io", "assay._facade", "assay.providers")


def _imported(path: Path) -> list[tuple[int, str]]:
    """``(line, dotted module)`` of every import of ``path`` (relative ones made absolute)."""
    package = "assay.providers"
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _allowed(module: str) -> bool:
    return any(module == ok or module.startswith(ok + ".") for ok in ALLOWED)


def test_the_walk_sees_every_providers_module() -> None:
    names = {p.name for p in PROVIDERS.glob("*.py")}
    assert {"__init__.py", "client.py", "model_config.py", "call_cache.py"} <= names


def test_providers_import_only_core_io_and_themselves() -> None:
    outside = [
        f"{path.name}:{line}: {module}"
        for path in sorted(PROVIDERS.rglob("*.py"))
        for line, module in _imported(path)
        if (module == "assay" or module.startswith("assay.")) and not _allowed(module)
    ]
    assert not outside, "\n".join(outside)


def test_the_rule_flags_an_upper_layer() -> None:
    assert not _allowed("assay.systems.base")
    assert not _allowed("assay.iox")
    assert _allowed("assay.io.configfile") and _allowed("assay.core")
