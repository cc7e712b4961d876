"""The ``assay`` command line: a thin typer app.

Each sub-command lives in its own module of this package and only parses
arguments, calls the library and prints. :func:`main` turns any
:class:`assay.core.errors.AssayError` into a message on stderr and exit code 2.
"""

from __future__ import annotations

from assay.cli.app import app, main, script

__all__ = ["app", "main", "script"]
