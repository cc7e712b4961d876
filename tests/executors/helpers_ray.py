"""What the Ray tests share: running a command in this process, comparing result files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main


def cli(*args: str, code: int = 0) -> None:
    """Run an ``assay`` command in this process (so that it joins the test cluster)."""
    with pytest.raises(SystemExit) as done:
        main(list(args))
    assert done.value.code == code


def stripped(value: Any, drop: tuple[str, ...]) -> Any:
    """``value`` without the keys ``drop`` at any depth."""
    if isinstance(value, dict):
        return {k: stripped(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [stripped(v, drop) for v in value]
    return value


def same_json(a: Path, b: Path, drop: tuple[str, ...]) -> None:
    """The two JSON files are equal but for the keys ``drop`` (timing, environment, paths)."""
    left = stripped(json.loads(a.read_text()), drop)
    right = stripped(json.loads(b.read_text()), drop)
    assert left == right


def now_ms() -> int:
    """The time now, as Ray's state API writes task times (ms since the epoch)."""
    import time

    return int(time.time() * 1000)
