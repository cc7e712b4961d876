"""Run formats, their detection, and the marker line of runs written by older assay versions.

A run is TREC (``qid Q0 docid rank score tag``) or JSONL (one query per line).
Runs are written plain now (the sidecar records which run it belongs to); a run
that an older ``assay run`` wrote starts with a marker (:data:`TREC_MARKER`, a
``#`` line trec_eval 10 skips; :data:`JSONL_MARKER`, the key of a first object
that is no query). Readers skip it, so such runs still read.
"""

from __future__ import annotations

from pathlib import Path

from assay.io.formats import detect_format as detect

FORMATS = ("trec", "jsonl")
#: The first line of a TREC run written by an older ``assay run`` (trec_eval 10 skips
#: ``#`` lines): skipped when read; no longer written.
TREC_MARKER = b"# assay run:"
#: The key of the first object of a JSONL run written by ``assay run`` (the same marker).
JSONL_MARKER = "assay_run"


# --------------------------------------------------------------------- detect
def detect_format(path: str | Path) -> str:
    """The run format of ``path``, from its name, then its content; see :mod:`assay.io.formats`."""

    return detect(path, "run")


def marker_lines(path: str | Path) -> int:
    """1 when the TREC run at ``path`` starts with the marker of ``assay run``, else 0."""
    with open(path, "rb") as fh:
        return 1 if fh.read(len(TREC_MARKER)) == TREC_MARKER else 0
