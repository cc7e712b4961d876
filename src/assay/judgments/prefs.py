"""Preference judgments as trec_eval reads them (``-R prefs`` and ``-R qrels_prefs``).

A prefs file has one line per judged document: ``qid jg jsg doc_id
rel_level``. Within a judgment sub-group (``jsg``) every document with a
higher ``rel_level`` is preferred to every document with a lower one; the
sub-groups of one judgment group (``jg``, one user's need) combine, with
transitive preferences; different groups may disagree. A ``rel_level`` of 0
marks a non-relevant document. ``qrels_prefs`` reads a TREC qrels file
(``qid jg doc_id grade``) the same way, with one sub-group ``0`` per group.

Lines starting with ``#`` are comments, blank lines are skipped. Unlike
trec_eval (which reads unparsable numbers as 0 and double counts a repeated
line), a missing or extra field, a level that is not a finite number and a
document listed twice in one sub-group are errors naming file, line and
field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import collecting
from assay.io.textio import decode, read_bytes

_PREFS_FIELDS = ("query_id", "jg", "jsg", "doc_id", "rel_level")
_QRELS_FIELDS = ("query_id", "jg", "doc_id", "rel_level")


@dataclass(frozen=True)
class Pref:
    """One judged document of one sub-group: trec_eval's text prefs line."""

    jg: str
    jsg: str
    doc_id: str
    level: float
    line: int


@dataclass(frozen=True)
class Preferences:
    """Preference judgments per query (query ids sorted as trec_eval sorts them).

    ``format`` is ``prefs`` or ``qrels_prefs`` (trec_eval's ``-R`` value).
    """

    queries: dict[str, tuple[Pref, ...]]
    path: str
    format: str = "prefs"

    @property
    def query_ids(self) -> list[str]:
        """Judged query ids, sorted."""
        return list(self.queries)


def load_prefs(path: str | Path, format: str = "prefs") -> Preferences:
    """Read a trec_eval prefs file (``format='prefs'``) or qrels as prefs (``'qrels_prefs'``).

    Raises :class:`~assay.core.errors.InputError` naming file, line and field for
    a line with the wrong number of fields, a level that is not a finite
    number, a document repeated in one sub-group, or a file without lines.
    """

    fields = _PREFS_FIELDS if format == "prefs" else _QRELS_FIELDS
    p = Path(path)
    with collecting(p) as log:
        text = decode(read_bytes(p), log)
        queries: dict[str, list[Pref]] = {}
        seen: dict[tuple[str, str, str, str], int] = {}
        for number, line in enumerate((text or "").splitlines(), start=1):
            row = _parse(line, number, fields, log)
            if row is None:
                continue
            qid, pref = row
            first = seen.setdefault((qid, pref.jg, pref.jsg, pref.doc_id), number)
            if first != number:
                log.add(number, f"document {pref.doc_id!r} listed twice in query {qid!r}, "
                        f"group {pref.jg!r} (first on line {first})", field="doc_id",
                        hint="keep one line per document and sub-group")  # fmt: skip
                continue
            queries.setdefault(qid, []).append(pref)
        if text is not None and not queries and not log:
            log.add(None, "empty file: no preferences", hint="write lines: " + " ".join(fields))
        log.raise_if_any()
        ordered = {q: tuple(queries[q]) for q in sorted(queries)}
        return Preferences(ordered, str(p), format)
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises


def _parse(line: str, number: int, fields: tuple[str, ...], log: Any) -> tuple[str, Pref] | None:
    """One prefs line as (query id, pref); None for a blank or comment line, or a problem."""
    if line.startswith("#"):
        return None
    parts = line.split()
    if not parts:
        return None
    if len(parts) != len(fields):
        at = fields[min(len(parts), len(fields) - 1)]
        log.add(number, f"expected {len(fields)} fields ({' '.join(fields)}), found {len(parts)}",
                field=at, hint="write: " + " ".join(fields))  # fmt: skip
        return None
    try:
        level = float(parts[-1])
    except ValueError:
        level = math.nan
    if not math.isfinite(level):
        log.add(number, f"{parts[-1]!r} is not a finite number", field="rel_level",
                hint="write a decimal level, 0 for non-relevant")  # fmt: skip
        return None
    jsg = parts[2] if len(fields) == 5 else "0"
    return parts[0], Pref(parts[1], jsg, parts[-2], level, number)
