"""trec_eval's z-score mode (``-Z``): each per-query value in reference standard deviations.

A z-score file has one line per query and measure, ``qid measure mean
stddev`` (whitespace separated), the reference values typically coming from a
pool of other runs. trec_eval turns every per-query value ``v`` of a measure
printed as ``measure`` into ``(v - mean) / stddev`` before averaging; when the
deviation is 0 the value becomes 0 if it equals the mean; when the query or
the measure has no line, or the deviation is 0 and the value differs from the
mean, it becomes :data:`MISSING_ZSCORE` (-1000000). Geometric means (``gm_map``,
``gm_bpref``) are converted on the log of the per-query value trec_eval
accumulates, and the summary is ``exp`` of the mean z-score.

trec_eval looks a measure up by a binary search that reads one entry past the
query's own block, so a measure sorting after every measure of its query takes
the mean and deviation of the next query's first measure when the names are
equal; :meth:`ZScores.lookup` does the same, so the output stays byte for byte.
Past the last query's block trec_eval reads outside its table (undefined: it may
crash); there the value is missing.

Unlike trec_eval (which reads unparsable numbers as 0 and keeps one of two
duplicated lines at random), a field that is not a number, a missing or extra
field and a duplicated ``qid measure`` pair are errors naming file, line and
field; blank lines are skipped.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assay.core.errors import collecting
from assay.io.textio import decode, read_bytes

#: trec_eval's value for a query and measure without a usable reference
MISSING_ZSCORE = -1000000.0
_FIELDS = ("qid", "measure", "mean", "stddev")


@dataclass(frozen=True)
class ZScores:
    """Reference means and standard deviations, sorted by (query id, measure name).

    ``entries`` holds ``(qid, measure, mean, stddev)`` in trec_eval's sort
    order (byte order of query id, then of measure name).
    """

    entries: tuple[tuple[str, str, float, float], ...]
    path: str = ""
    _blocks: dict[str, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        blocks: dict[str, tuple[int, int]] = {}
        for i, e in enumerate(self.entries):
            blocks[e[0]] = (blocks.get(e[0], (i, i))[0], i + 1)
        object.__setattr__(self, "_blocks", blocks)

    def lookup(self, qid: str, measure: str) -> tuple[float, float] | None:
        """``(mean, stddev)`` trec_eval uses for ``measure`` on ``qid``, or None."""
        block = self._blocks.get(qid)
        if block is None:
            return None
        start, end = block
        pos = bisect_left(self.entries, measure, start, end, key=lambda e: e[1])
        if pos < end and self.entries[pos][1] == measure:
            return self.entries[pos][2], self.entries[pos][3]
        # trec_eval's search reads entry ``end`` (the next query's first measure)
        if pos == end < len(self.entries) and self.entries[end][1] == measure:
            return self.entries[end][2], self.entries[end][3]
        return None

    def convert(self, qids: list[str], measure: str, values: Any) -> Any:
        """Per-query ``values`` of ``measure`` (aligned with ``qids``) as trec_eval's z-scores."""
        v = np.asarray(values, dtype=np.float64)
        refs = [self.lookup(q, measure) for q in qids]
        found = np.array([r is not None for r in refs], dtype=bool)
        mean = np.array([r[0] if r else 0.0 for r in refs], dtype=np.float64)
        sd = np.array([r[1] if r else 1.0 for r in refs], dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd != 0, (v - mean) / np.where(sd != 0, sd, 1.0), 0.0)
        usable = found & ((sd != 0) | (v == mean))
        return np.where(usable, z, MISSING_ZSCORE)


def load_zscores(path: str | Path) -> ZScores:
    """Read a trec_eval z-score file (``qid measure mean stddev`` per line).

    Raises :class:`~assay.core.errors.InputError` naming file, line and field for a
    line without exactly four fields, a mean or deviation that is not a number,
    a repeated ``qid measure`` pair or a file without any line.
    """

    p = Path(path)
    with collecting(p) as log:
        text = decode(read_bytes(p), log)
        rows: dict[tuple[str, str], int] = {}
        entries: list[tuple[str, str, float, float]] = []
        for number, line in enumerate((text or "").splitlines(), start=1):
            entry = _parse_line(line, number, log)
            if entry is None:
                continue
            first = rows.setdefault((entry[0], entry[1]), number)
            if first != number:
                log.add(number, f"duplicate z-score for query {entry[0]!r} and measure "
                        f"{entry[1]!r} (first seen on line {first})", field="measure",
                        hint="keep one line per query and measure")  # fmt: skip
            entries.append(entry)
        if text is not None and not entries and not log:
            log.add(None, "empty z-score file", hint="write lines: qid measure mean stddev")
        log.raise_if_any()
        return ZScores(tuple(sorted(entries, key=lambda e: (e[0], e[1]))), str(p))
    raise AssertionError("unreachable")  # pragma: no cover - collecting always raises


def _parse_line(line: str, number: int, log: Any) -> tuple[str, str, float, float] | None:
    """One z-score line, or None (blank, or a problem recorded in ``log``)."""
    fields = line.split()
    if not fields:
        return None
    if len(fields) != 4:
        missing = _FIELDS[len(fields)] if len(fields) < 4 else "stddev"
        log.add(number, f"expected 4 fields (qid measure mean stddev), found {len(fields)}",
                field=missing, hint="write: qid measure mean stddev")  # fmt: skip
        return None
    numbers: list[float] = []
    for name, raw in zip(_FIELDS[2:], fields[2:], strict=True):
        try:
            numbers.append(float(raw))
        except ValueError:
            log.add(number, f"{raw!r} is not a number", field=name, hint="write a decimal")
            return None
    return fields[0], fields[1], numbers[0], numbers[1]
