"""Writing reports and result files: see :mod:`assay.io.fileio`, the one atomic-write rule."""

from __future__ import annotations

from assay.io.fileio import write_text_atomic

__all__ = ["write_text_atomic"]
