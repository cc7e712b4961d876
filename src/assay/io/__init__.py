"""Reading and writing files: atomic writes, text and JSON readers, formats, CSV, columns.

Imports only :mod:`assay.core`.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "detect_format": "assay.io.formats",
        "detect_kind": "assay.io.formats",
        "write_bytes_atomic": "assay.io.fileio",
        "write_files_atomic": "assay.io.fileio",
        "write_text_atomic": "assay.io.fileio",
    },
    globals(),
)
