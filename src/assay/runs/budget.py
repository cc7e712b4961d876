"""The memory of a run scored in blocks: the budget's arithmetic and what is given back.

:mod:`assay.runs.blocks` reads a run file too large for the budget in blocks; this
module says when a file is too large (:func:`in_memory_bytes`), how large a block may
be (:func:`block_within`, leaving room for what the judgments and the blocks scored keep:
:func:`judgments_mb`, :func:`kept_mb`), and gives memory freed by a block back to the
system (:func:`release_memory`, :func:`map_large_blocks`). The constants are measured;
each says on what.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

#: Bytes of run file per MB of budget that the in-memory path may take: an
#: evaluation peaks at about 3.4 times its run file (measured: 1,142 MB for 342 MB).
MEMORY_PER_FILE_BYTE = 3.5
#: Bytes held per byte of block besides the block scored: the next block, read ahead
#: while one is scored, and the piece of file being parsed for the one after.
READ_AHEAD = 2.0
#: Memory an evaluation takes besides its run (interpreter, libraries, judgments), in MB.
BASELINE_MB = 300
#: The smallest block (bytes of run file): fewer, larger blocks cost less time.
MIN_BLOCK = 8 << 20


def release_memory() -> None:
    """Give the memory freed by a scored block back to the system before the next is read:
    Arrow's pool, and glibc's heaps (freed blocks of a few MB stay mapped otherwise, and
    the process's size grew with every block: +100 MB over five blocks of a 10M-line run)."""
    import ctypes

    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
            ctypes.CDLL(None).malloc_trim(0)


#: glibc's ``mallopt`` parameter: the size from which a block is mapped on its own.
_M_MMAP_THRESHOLD = -3
#: Blocks of this many bytes or more are mapped on their own while a run is scored in
#: blocks. Measured on the 30M-line runs (medians of three): 1 MB took 1.2x the time of
#: glibc's own policy on the sorted run for 30 MB less; 4 MB, the same time, and 30 MB
#: less at the shuffled run's peak (532 MB against 562).
MAP_FROM = 4 << 20


def map_large_blocks() -> None:
    """Have glibc map every block of :data:`MAP_FROM` bytes or more on its own (and unmap it
    when freed), for the rest of the process.

    By default glibc raises that size after each such block is freed, up to 32 MB, so the
    arrays of one scored block were carved from its heaps and stayed there, fragmented,
    under the next: the resident size grew by about 90 MB over the first four blocks of
    the shuffled 30M-line run (measured), memory the budget had given to the blocks.
    """
    import ctypes

    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc: its own policy
            ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, MAP_FROM)


#: Bytes a judged query adds while a run is scored in blocks, besides 8 a measure: its
#: id and hash among the blocks read, its row of the merged table, and the allocator's
#: slack (measured: the process grew by 120 MB over a 100M-line run of a million
#: queries, 4 measures, between its second block and its last).
KEPT_PER_QUERY = 96


def kept_mb(queries: int, measures: int) -> float:
    """MB the blocks of a run leave behind them by its end, for ``queries`` judged queries
    scored on ``measures`` measures (each block's queries' values, ids and hashes)."""
    return queries * (KEPT_PER_QUERY + 8 * measures) / (1 << 20)


def resident_mb() -> float:
    """The process's resident memory now (MB; its peak so far where /proc is absent)."""
    import os
    import resource

    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1 << 20 if sys.platform == "darwin" else 1 << 10)


def in_memory_bytes(memory_mb: int) -> int:
    """The largest run file (bytes) that the in-memory path reads within ``memory_mb``."""
    return int(max(memory_mb - BASELINE_MB, 0) * (1 << 20) / MEMORY_PER_FILE_BYTE)


def block_within(memory_mb: float, besides_mb: float | None) -> int:
    """Bytes of a block within the budget ``memory_mb``, once what the process holds now
    and ``besides_mb`` (what is still to load, or what the blocks will keep) are taken:
    room for the block scored and the block read ahead, at least :data:`MIN_BLOCK`, and
    that when ``besides_mb`` is ``None`` (not known)."""
    if besides_mb is None:
        return MIN_BLOCK
    free = memory_mb - resident_mb() - besides_mb
    return max(MIN_BLOCK, int(free * (1 << 20) / (MEMORY_PER_FILE_BYTE + READ_AHEAD)))


#: What a judgment file holds in memory per byte of file while it is read, at its peak
#: (measured: a 100 MB TREC qrels file of 5 million judgments peaked 855 MB above the
#: 120 MB of the interpreter and libraries).
JUDGMENTS_PER_FILE_BYTE = 9


def judgments_mb(judgments: Any) -> float | None:
    """MB that loading the judgment file ``judgments`` will hold at its peak (an estimate
    from its size); ``None`` when it is not a file (a folder, a name: not known)."""
    if not isinstance(judgments, str | Path) or not Path(judgments).is_file():
        return None
    return Path(judgments).stat().st_size * JUDGMENTS_PER_FILE_BYTE / (1 << 20)
