"""MkDocs hook: fill the ``<!-- generated: NAME -->`` markers from the code (see reference.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import reference  # noqa: E402


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Expand generated parts of a page before MkDocs renders it."""
    return reference.expand(markdown)
