"""Where each query's lines are in a TREC run file, so one query is read without the rest.

:func:`build_offsets` finds, in one vectorised pass (pyarrow parses the query
column, numpy finds the line ends), the byte ranges of each query's lines: a
table of ``query``, ``offset``, ``length``, one row per stretch of consecutive
lines of one query (a grouped run has one per query; an interleaved run more).
:func:`query_lines` reads only those ranges and parses them as
:func:`~assay.runs.io.load_run` parses a file, so a query's ranked list is the
one the whole run gives. :func:`load_offsets` keeps the table in a cache file,
keyed by the run file's size and modification time and its sidecar's content
version: a stale or unreadable cache file is rebuilt, never trusted.

Only a plain TREC file is indexed (not gzip, not JSONL, no BOM, one space
between fields, no blank line); for any other file these functions return
``None`` and the caller reads the whole run.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from assay.runs.markers import TREC_MARKER
from assay.textio import BOM

#: Version of the cache file's layout (a different one is rebuilt).
LAYOUT = 1
#: Bytes of run file scanned for line ends at a time.
SCAN_BYTES = 1 << 24


def run_key(path: str | Path) -> dict[str, str]:
    """What a cached index of ``path`` must match: the run's size, mtime and sidecar version."""
    from assay.hashing import content_version
    from assay.runs.sidecar import sidecar_path

    st = os.stat(path)
    side = sidecar_path(path)
    return {
        "layout": str(LAYOUT),
        "size": str(st.st_size),
        "mtime_ns": str(st.st_mtime_ns),
        "sidecar": content_version(side.read_bytes()) if side.is_file() else "",
    }


def _marker_skip(path: Path) -> int | None:
    """1 when the file starts with ``assay run``'s marker line, 0 when not; None: not plain."""
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if not head or head.startswith((BOM, b"\x1f\x8b", b"{")):
        return None
    return 1 if head.startswith(TREC_MARKER) and b"\n" in head else 0


def _line_starts(path: Path, size: int) -> np.ndarray:
    """Byte offset of the start of every line, and ``size`` last (the end of the last line);
    the file is scanned through one buffer of :data:`SCAN_BYTES`, so memory holds no copy."""
    ends = []
    buffer = bytearray(SCAN_BYTES)
    view = np.frombuffer(buffer, dtype=np.uint8)
    at = 0
    with open(path, "rb") as fh:
        while n := fh.readinto(buffer):
            ends.append(np.flatnonzero(view[:n] == 10) + (at + 1))
            at += n
    starts = np.concatenate([np.zeros(1, np.int64), *ends])
    if starts[-1] != size:
        starts = np.append(starts, size)
    return starts


def build_offsets(path: str | Path) -> Any:
    """The byte ranges of each query's lines (a pyarrow table), or None: not a plain TREC file."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from assay.pairs import encode_grouped
    from assay.runs._columns import csv_options

    p = Path(path)
    size = p.stat().st_size
    skip = _marker_skip(p)
    if skip is None:
        return None
    options = csv_options(skip)
    options["convert_options"].include_columns = ["query_id"]
    try:
        with pacsv.open_csv(str(p), **options) as reader:  # streamed: a block at a time
            column = pa.chunked_array(
                [batch.column(0) for batch in reader if batch.num_rows], pa.string()
            )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    codes, ids = encode_grouped(column)
    del column
    starts = _line_starts(p, size)
    if len(starts) - 1 != skip + len(codes) or not len(codes):
        return None  # a line the parser did not count: read the whole run instead
    starts = starts[skip:]
    first = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]
    last = np.r_[first[1:], len(codes)]
    return pa.table(
        {
            "query": pa.array(ids).take(pa.array(codes[first])),
            "offset": pa.array(starts[first]),
            "length": pa.array(starts[last] - starts[first]),
        }
    )


def load_offsets(path: str | Path, cache: Path | None) -> Any:
    """The offsets table of ``path``: read from ``cache`` when its key matches, else built
    (and written there atomically when ``cache`` is given); None: not a plain TREC file."""
    import pyarrow as pa

    key = run_key(path)
    if cache is not None and cache.is_file():
        try:
            with pa.memory_map(str(cache)) as source:
                table = pa.ipc.open_file(source).read_all()
            meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
            if meta == {**key, "run": str(Path(path).resolve())}:
                return table
        except (OSError, pa.ArrowException, UnicodeDecodeError):
            pass  # unreadable: rebuilt below
    table = build_offsets(path)
    if table is None or cache is None:
        return table
    table = table.replace_schema_metadata({**key, "run": str(Path(path).resolve())})
    with contextlib.suppress(OSError):  # a folder that cannot be written: kept in memory only
        _write(cache, table)
    return table


def _write(cache: Path, table: Any) -> None:
    import pyarrow as pa

    from assay.fileio import write_bytes_atomic

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    cache.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(cache, sink.getvalue().to_pybytes())


def query_bytes(path: str | Path, table: Any, query_id: str) -> bytes | None:
    """The lines of ``query_id`` (one per line, newline-ended), or None when a range read
    does not start with the query (the file changed under the index)."""
    import pyarrow.compute as pc

    rows = table.filter(pc.equal(table.column("query"), query_id))
    parts = []
    with open(path, "rb") as fh:
        for offset, length in zip(
            rows.column("offset").to_pylist(), rows.column("length").to_pylist(), strict=True
        ):
            fh.seek(offset)
            part = fh.read(length)
            if not part.startswith(query_id.encode() + b" "):
                return None
            parts.append(part if part.endswith(b"\n") else part + b"\n")
    return b"".join(parts)


def query_lines(path: str | Path, table: Any, query_id: str) -> list[tuple[str, float]] | None:
    """``query_id``'s ``(doc_id, score)`` in rank order, as ``load_run(path).to_dict()`` gives
    them, read from its lines only; None: the index does not fit the file (rebuild it)."""
    data = query_bytes(path, table, query_id)
    if data is None:
        return None
    if not data:
        return []
    from assay.runs._columns import parse_columns
    from assay.runs.read import _columns_to_run

    run = _columns_to_run(Path(path), parse_columns(data), None, None)
    return run.to_dict().get(query_id, [])
