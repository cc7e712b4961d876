"""A TREC run file read in blocks of whole queries, so memory is set by a block, not the file.

:class:`RunBlocks` stands for a run too large for the memory budget
(:func:`blocked_run` decides). Iterating it yields :class:`~assay.runs.models.Run`
objects, each holding every line of its queries, parsed and checked as
:func:`~assay.runs.io.load_run` checks a whole file (the same bad lines are
named, with their line in the file):

- the file is read a piece of whole lines at a time, each parsed by pyarrow's
  threaded CSV reader, on a second thread that reads the next block while the
  caller scores this one (:class:`~assay.core._threads.Ahead`);
- a *grouped* run (each query's lines together, as every system writes them) is
  cut into blocks: a block ends at the first query boundary after
  :attr:`RunBlocks.streamed_bytes` (the lines of the query still being read move
  on to the next block);
- an *interleaved* run (a query's lines spread over the file) is found out when
  a query seen in an earlier block comes back; it is then partitioned, as a
  sort-merge would, into temporary Arrow files by a hash of the query id, each
  keeping its lines in file order, and each partition is one block.

Every query's lines reach the engine in their order in the file, so the
per-query values are those of the whole run, bit for bit.
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assay.core._threads import Ahead
from assay.core.pairs import hashes
from assay.io.textio import BOM
from assay.runs._columns import line_pieces, parse_piece, table_columns
from assay.runs.budget import block_within, in_memory_bytes, kept_mb, release_memory
from assay.runs.markers import JSONL_MARKER, TREC_MARKER, detect_format
from assay.runs.models import Run
from assay.runs.read import _columns_to_run, _first_tag

#: Partitions of an interleaved run per block of the budget.
PARTITION_SHARE = 3
#: Bytes of file read and parsed at a time (at most a quarter block), on every core.
READ_BLOCK = 16 << 20


#: The largest block of a grouped run (bytes parsed), whatever the budget: the next
#: block is read while one is scored, so only the first block's read is not overlapped,
#: and smaller blocks hold less. Measured on a 10M-line sorted run (342 MB, 2 vCPU,
#: medians of four, alternated): 16 MB blocks 4.53 s and 391 MB, 32 MB 4.35 s and
#: 440 MB, 64 MB 4.17 s and 517 MB, 128 MB 4.06 s and 660 MB.
STREAMED_BLOCK = 64 << 20


class Interleaved(Exception):
    """A query came back after its block was complete: the run must be partitioned."""


class Stopped(Exception):
    """The file was being read when the evaluation ended (:meth:`RunBlocks.discard`)."""


@dataclass(eq=False)
class RunBlocks:
    """A TREC run file read block by block (see the module docstring).

    ``name``, ``path``, ``has_scores`` and ``metadata`` are a loaded run's. After a
    complete iteration, ``query_ids`` (first-appearance order of the blocks),
    ``rows`` and ``longest`` hold what :class:`Run` would tell of the whole file;
    the ids are kept as one Arrow array a block (``ids``), not a Python string each;
    while a block is handed over, ``ids[-1]`` holds its ids.
    """

    path: str
    name: str
    block_bytes: int
    skip: int = 0
    read_bytes: int = READ_BLOCK
    memory_mb: int | None = None
    has_scores: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)
    ids: list[Any] = field(default_factory=list, repr=False)
    rows: int = 0
    longest: int = 0
    _reading: Ahead[tuple[Any, int]] | None = field(default=None, init=False, repr=False)
    #: partitions written while the judgments loaded (a run interleaved from its first
    #: lines), and what stops any reading of the file when the evaluation ends first
    _early: list[Path] | None = field(default=None, init=False, repr=False)
    _cancel: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _tmp: Path | None = field(default=None, init=False, repr=False)

    def __len__(self) -> int:
        return self.rows

    @property
    def query_ids(self) -> list[str]:
        """The query ids of the blocks read, in their order (made on demand)."""
        return [q for ids in self.ids for q in ids.to_pylist()]

    def fit(self, queries: int = 0, measures: int = 0) -> RunBlocks:
        """Size the blocks to the budget ``memory_mb`` less what the process holds now
        (the judgments loaded: a set of many queries leaves less for the run) and less
        what the blocks leave behind them by the end for ``queries`` judged queries and
        ``measures`` measures (:func:`kept_mb`)."""
        if self.memory_mb is not None:
            self.block_bytes = block_within(self.memory_mb, kept_mb(queries, measures))
            self.read_bytes = _read_size(self.block_bytes)
        return self

    def grouped(self) -> Iterator[Run]:
        """Blocks of a grouped run, streamed; raises :class:`Interleaved` when it is not."""

        self.ids, self.rows, self.longest = [], 0, 0
        # the hashes of the queries read, sorted: no Python string per query (equal
        # hashes of two long ids only send the run to the partitioned path)
        seen = np.zeros(0, dtype=np.uint64)
        reading, self._reading = self.start()._reading, None
        try:
            for table, first_row in reading:  # the next block is read while this is scored
                held = [table]
                del table
                run = self._run(held, first_row)
                ids = run.query_id_array()
                mine = np.sort(hashes(ids))
                at = np.minimum(np.searchsorted(seen, mine), max(len(seen) - 1, 0))
                if len(seen) and (seen[at] == mine).any():
                    raise Interleaved
                seen = np.sort(np.concatenate([seen, mine]))
                held = [run]
                del run  # this frame keeps no block while the caller scores it
                yield self._count(held.pop(), ids)
        finally:
            reading.close()

    def start(self) -> RunBlocks:
        """Begin reading the first blocks on a second thread (while the judgments load);
        :meth:`grouped` goes on from them. A run whose first lines are interleaved is
        partitioned on that thread before any block is made (:meth:`partitioned` then
        reads the partitions)."""
        if self._reading is None:
            self._reading = Ahead(self._scan(), "assay-read")
        return self

    def discard(self) -> None:
        """Stop reading ahead (the evaluation ended before or after the blocks) and delete
        any partitions written."""
        self._cancel.set()
        reading, self._reading = self._reading, None
        if reading is not None:
            reading.close()
        self._early = None
        self._cleanup()

    def _scan(self) -> Iterator[tuple[Any, int]]:
        """:meth:`_stream`; when the first lines already show the run interleaved, its
        partitions are written before :class:`Interleaved` is raised."""
        handed = False
        try:
            for item in self._stream():
                handed = True
                yield item
        except Interleaved:
            if not handed:  # no block made yet: partitioned here, while the judgments load
                self._early = self._partition(self._temporary(), self._parts())
            raise

    def partitioned(self) -> Iterator[Run]:
        """Blocks of any run: partitions of whole queries by a hash of the query id
        (written already when the run was interleaved from its first lines)."""
        self.ids, self.rows, self.longest = [], 0, 0
        try:
            files, self._early = self._early, None
            if files is None:
                files = self._partition(self._temporary(), self._parts())
            release_memory()  # the reader's and writers' buffers: not kept while scoring
            # the next partition is read (and checked) while this one is scored
            reading = Ahead(self._parts_of(files), "assay-read")
            try:
                for run in reading:
                    held = [run]
                    del run
                    yield self._count(held.pop(), None)
                    release_memory()  # the block scored and let go of
            finally:
                reading.close()
        finally:
            self._cleanup()

    def _parts(self) -> int:
        """How many partitions: an interleaved block is grouped before it is ranked, so it
        needs more memory per line than a streamed one (measured: 5.8x its file bytes at
        171 MB, 3x at 68 MB)."""
        size = Path(self.path).stat().st_size
        return max(2, math.ceil(PARTITION_SHARE * size / self.block_bytes))

    def _temporary(self) -> Path:
        """A new folder for the partitions (deleted by :meth:`_cleanup`, or when this
        object is let go of)."""
        self._cleanup()
        tmp = Path(tempfile.mkdtemp(prefix="assay-blocks-"))
        self._tmp = tmp
        weakref.finalize(self, shutil.rmtree, tmp, True)
        return tmp

    def _cleanup(self) -> None:
        tmp, self._tmp = self._tmp, None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    def _parts_of(self, files: list[Path]) -> Iterator[Run]:
        """The runs of the partition ``files`` (each deleted once read), empty ones left out."""
        for part in files:
            run = self._read_part(part)
            part.unlink()
            if run is not None:
                yield run
                del run

    def _count(self, run: Run, ids: Any) -> Run:
        """``run``, its ids (an Arrow array, or ``None``: the run's) and counts added."""

        self.ids.append(run.query_id_array() if ids is None else ids)
        self.rows += len(run)
        self.longest = max(self.longest, run.longest)
        return run

    def _batches(self) -> Iterator[Any]:
        """The file's record batches, with pyarrow's parse errors as the whole read's.

        The file is read :attr:`read_bytes` at a time, cut after its last whole line,
        and each piece parsed by pyarrow's threaded reader (in four blocks, on every
        core): its streaming reader parses on one thread, and a run's read then took
        1.2 to 1.3 times as long (measured alone).
        """
        skip = self.skip
        # the size is asked each time: pieces grow once the blocks are sized (:meth:`fit`)
        for piece in line_pieces(self.path, lambda: self.read_bytes):
            if self._cancel.is_set():
                raise Stopped  # discarded: reading stops within a piece, partitioning too
            table = parse_piece(piece, skip)
            del piece
            skip = 0
            yield from table.to_batches()
            del table

    def _stream(self) -> Iterator[tuple[Any, int]]:
        """Arrow tables of whole queries, about :meth:`streamed_bytes` each, in file order,
        with the row of the file each starts on."""
        import pyarrow as pa

        held: list[Any] = []
        size, first_row = 0, 0
        for batch in self._batches():
            if _scattered(batch.column("query_id")):
                raise Interleaved  # before a block is read: an interleaved run shows at once
            held.append(batch)
            size += batch.nbytes
            if size < self.streamed_bytes:
                continue
            table = pa.Table.from_batches(held)
            cut = _last_query_start(table.column("query_id"))
            if cut == 0:  # one query fills the block: read on
                continue
            # the next block's start is copied: a slice would keep this block's buffers alive
            rest = table.slice(cut).take(np.arange(table.num_rows - cut))
            block = table.slice(0, cut)
            del table
            held, size = rest.to_batches(), rest.nbytes
            del rest
            yield block, first_row
            del block
            release_memory()
            first_row += cut
        if held:
            last = pa.Table.from_batches(held)
            held = []
            if last.num_rows:
                yield last, first_row

    @property
    def streamed_bytes(self) -> int:
        """Bytes (parsed) of a block of a grouped run: :attr:`block_bytes`, at most
        :data:`STREAMED_BLOCK`."""
        return min(self.block_bytes, STREAMED_BLOCK)

    def _run(self, held: list[Any], first_row: int, lines: np.ndarray | None = None) -> Run:
        """The rows of the table in ``held`` (emptied) as a checked :class:`Run` (lines
        counted from ``first_row``, or ``lines``)."""

        columns = table_columns(held)
        run = _columns_to_run(
            Path(self.path), columns, self.name, None, self.skip + first_row, lines
        )
        run.metadata.clear()  # the file's, not the block's (whose line offset is no marker)
        run.metadata.update(self.metadata)
        return run

    def _partition(self, tmp: Path, parts: int) -> list[Path]:
        """Write each row, with its line in the file, to the partition of its query."""
        import pyarrow as pa
        import pyarrow.ipc as ipc

        files = [tmp / f"part-{i:05d}.arrow" for i in range(parts)]
        writers: dict[int, Any] = {}
        line = 1 + self.skip
        reading = Ahead(self._batches(), "assay-read")  # parsed while a batch is written
        try:
            for batch in reading:
                n = batch.num_rows
                part = partition_of(hashes(batch.column("query_id")), parts)
                small = part.astype(np.uint16) if parts <= 1 << 16 else part
                order = np.argsort(small, kind="stable")  # of 16-bit keys: a radix sort
                bounds = np.searchsorted(part[order], np.arange(parts + 1))
                lines = pa.array(np.arange(line, line + n, dtype=np.int64))
                table = pa.table(
                    {
                        "query_id": batch.column("query_id"),
                        "doc_id": batch.column("doc_id"),
                        "score": batch.column("score"),
                        "line": lines,
                    }
                ).take(pa.array(order))
                for i in np.flatnonzero(np.diff(bounds)).tolist():
                    if i not in writers:
                        writers[i] = ipc.new_stream(str(files[i]), table.schema)
                    writers[i].write_table(
                        table.slice(int(bounds[i]), int(bounds[i + 1] - bounds[i]))
                    )
                line += n
        finally:
            reading.close()
            for writer in writers.values():
                writer.close()
        return [files[i] for i in sorted(writers)]

    def _read_part(self, part: Path) -> Run | None:
        import pyarrow.ipc as ipc

        with ipc.open_stream(str(part)) as reader:
            table = reader.read_all()
        if not table.num_rows:
            return None
        lines = table.column("line").to_numpy()
        held = [table.select(["query_id", "doc_id", "score"])]
        del table
        return self._run(held, 0, lines)


def partition_of(keys: np.ndarray, parts: int) -> np.ndarray:
    """The partition (``0 <= p < parts``) of each uint64 key, spread evenly.

    The keys of short ids are their bytes (see :func:`~assay.core.pairs.hashes`): the
    first byte of ``q1``, ``q2``... is the same ``q``, so the key modulo an even
    number of partitions left half of them empty (and modulo a power of two up to
    256, all but one), doubling what one partition held. The keys are first mixed
    (the finaliser of SplitMix64: every input bit reaches every output bit), then
    mapped to ``[0, parts)`` by their high 32 bits.
    """
    x = np.array(keys, dtype=np.uint64)  # a copy: the keys are read-only
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return ((x >> np.uint64(32)) * np.uint64(parts) >> np.uint64(32)).astype(np.int64)


def _last_query_start(column: Any) -> int:
    """The row where the last query's final stretch of lines starts; raises
    :class:`Interleaved` when that query also has lines before it."""
    import pyarrow.compute as pc

    last = column[len(column) - 1]
    same = pc.equal(column, last).to_numpy(zero_copy_only=False)
    other = np.flatnonzero(~same)
    if not len(other):
        return 0
    cut = int(other[-1]) + 1
    if same[:cut].any():
        raise Interleaved
    return cut


def _scattered(column: Any) -> bool:
    """Whether a query's lines in ``column`` (one batch) are split by another query's: more
    stretches of equal ids than distinct ids (a grouped run has one stretch per query)."""
    import pyarrow.compute as pc

    if len(column) < 2:
        return False
    stretches = 1 + pc.sum(pc.not_equal(column[1:], column[:-1])).as_py()
    return bool(stretches > pc.count_distinct(column).as_py())


def _read_size(block: int) -> int:
    """Bytes of file read and parsed at a time for blocks of ``block`` bytes."""
    return max(1 << 10, min(READ_BLOCK, block // 4))


def blocked_run(
    source: Any, memory_mb: int, name: str | None = None, coming_mb: float | None = None
) -> RunBlocks | None:
    """A :class:`RunBlocks` of ``source`` when it is a plain TREC run file larger than the
    in-memory path allows within ``memory_mb``; else ``None`` (read it whole).

    Its first blocks, read while the judgments load, are sized to the budget less what
    the process holds now and ``coming_mb``, what the judgments will hold (``None``: not
    known, the smallest blocks); :meth:`RunBlocks.fit` sizes the rest once they are loaded.
    """

    if not isinstance(source, str | Path):
        return None
    path = Path(source)
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size <= in_memory_bytes(memory_mb):
        return None
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if head.startswith((BOM, b"\x1f\x8b")) or detect_format(path) != "trec":
        return None  # compressed, BOM or JSONL: read whole, as before
    skip = 1 if head.startswith(TREC_MARKER) and b"\n" in head else 0
    if skip:
        head = head[head.index(b"\n") + 1 :]
    if re.search(rb"\S", head) is None:
        return None

    metadata: dict[str, Any] = {"format": "trec", "warnings": []}
    if skip:
        metadata[JSONL_MARKER] = True
    run_name = name or _first_tag(head) or path.stem
    block = block_within(memory_mb, coming_mb)
    return RunBlocks(str(path), run_name, block, skip, _read_size(block), memory_mb, True, metadata)
