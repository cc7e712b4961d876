"""Where assay keeps its caches: ``$ASSAY_CACHE_DIR``, else ``.assay/cache``.

Every cache (complete runs, indexes, embeddings, model answers, the viewer's
offsets) lives in a folder of its own under one root: :data:`CACHE_ENV` names
it, :func:`cache_subdir` gives a kind's folder.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the cache directory.
CACHE_ENV = "ASSAY_CACHE_DIR"


def cache_subdir(kind: str, base_dir: str | Path | None = None) -> Path:
    """Where the built-in systems keep ``kind`` (``bm25`` indexes, ``embeddings``):
    ``$ASSAY_CACHE_DIR/<kind>`` if set, else ``<base_dir>/.assay/cache/<kind>``
    (``base_dir``: the working directory, or the folder of an assay.toml)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env) / kind
    return Path(base_dir or ".") / ".assay" / "cache" / kind
