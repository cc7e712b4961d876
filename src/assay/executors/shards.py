"""A run in shards: a directory or a glob of TREC, JSONL or Parquet files, read as one run.

Each shard is read and checked by the run reader (:func:`assay.runs.io.load_run`;
Parquet shards need ``query_id`` and ``doc_id`` string columns and may have a
``score`` column), one task per shard on the executor in force, and comes
back as an Arrow table. The driver joins the tables in the shards' sorted
order, so the run is exactly the one the concatenated file would give: a
query may span shards, a document listed twice for one query is refused even
across shards (naming both places), and the metrics engine then scores it as
it scores any run, to the last bit.
"""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

import numpy as np

from assay.core.errors import InputError, Problem, UsageError
from assay.core.pairs import arrow_column, arrow_strings, as_numpy, encode_grouped
from assay.core.repeats import repeated_ids
from assay.executors import current
from assay.runs._columns import categorical
from assay.runs.checks import duplicate_doc
from assay.runs.io import load_run
from assay.runs.models import Run

#: Files of a shard directory that are not shards (sidecars, hidden files, markers).
_SKIPPED_SUFFIXES = (".json", ".md", ".crc")
_PARQUET = (".parquet", ".pq")


def is_sharded(path: str | Path) -> bool:
    """True when ``path`` names shards: an existing directory, or a glob pattern."""
    p = Path(path)
    return p.is_dir() or (not p.exists() and any(c in str(p) for c in "*?["))


def shard_paths(path: str | Path) -> list[Path]:
    """The shard files of ``path`` (a directory or a glob), in sorted order."""
    p = Path(path)
    if p.is_dir():
        found = [
            f
            for f in p.iterdir()
            if f.is_file()
            and not f.name.startswith((".", "_"))
            and f.suffix not in _SKIPPED_SUFFIXES
        ]
    else:
        found = [Path(f) for f in glob.glob(str(p)) if Path(f).is_file()]
    if not found:
        raise UsageError(f"no run shards found at {p} (a directory or a glob of run files)")
    return sorted(found, key=lambda f: str(f))


def read_shard(_: Any, path: str) -> tuple[Any, bool, str | None]:
    """One shard as ``(Arrow table of query_id, doc_id, score; has scores; TREC tag)``."""
    import pyarrow as pa

    p = Path(path)
    if p.suffix.lower() in _PARQUET:
        return _read_parquet(p)

    run = load_run(p)
    frame = run.frame
    table = pa.table(
        {
            "query_id": _strings(pa.array(frame["query_id"], from_pandas=True)),
            "doc_id": _strings(pa.array(frame["doc_id"], from_pandas=True)),
            "score": pa.array(frame["score"].to_numpy(), pa.float64()),
        }
    )
    tag = run.name if run.metadata.get("format") == "trec" and run.name != p.stem else None
    return table, run.has_scores, tag


def _strings(array: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array.cast(pa.string())


def _read_parquet(p: Path) -> tuple[Any, bool, str | None]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(p)
    except (OSError, pa.ArrowException) as exc:
        raise InputError([Problem(str(p), None, f"cannot be read as Parquet: {exc}")]) from None
    problems = []
    for column in ("query_id", "doc_id"):
        if column not in table.column_names:
            problems.append(Problem(str(p), None, f"no {column} column", field=column))
        elif table.column(column).null_count:
            row = int(pc.index(pc.is_null(table.column(column)), True).as_py())
            problems.append(Problem(str(p), row + 1, f"{column} is empty", field=column))
    if problems:
        raise InputError(problems)
    has_scores = "score" in table.column_names
    scores = (
        table.column("score").cast(pa.float64()).combine_chunks()
        if has_scores
        else pa.array(np.full(table.num_rows, np.nan))
    )
    if has_scores:
        values = scores.fill_null(np.nan).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            row = int(bad[0])
            raise InputError(
                [Problem(str(p), row + 1, f"score {values[row]} is not finite", field="score")]
            )
    out = pa.table(
        {
            "query_id": _strings(table.column("query_id").combine_chunks()),
            "doc_id": _strings(table.column("doc_id").combine_chunks()),
            "score": scores,
        }
    )
    return out, has_scores, None


def load_sharded_run(path: str | Path, name: str | None = None) -> Any:
    """The run held in the shards at ``path``, read on the executor in force.

    Its name is ``name``, else the TREC tag of the first shard, else the folder's name."""
    import pyarrow as pa

    paths = shard_paths(path)
    parts = list(current().map(read_shard, [str(f) for f in paths]))
    scored = {has for _, has, _ in parts}
    if len(scored) > 1:
        unscored = next(f for f, (_, has, _) in zip(paths, parts, strict=True) if not has)
        raise InputError(
            [Problem(str(unscored), None, "has no scores while other shards have them")]
        )
    table = pa.concat_tables([t for t, _, _ in parts])
    _check_across(paths, [t.num_rows for t, _, _ in parts], table)
    name = name or parts[0][2] or _set_name(Path(path))
    return _as_run(table, name, path, scored.pop(), len(paths))


def _set_name(path: Path) -> str:
    """The name of a run without a TREC tag: its folder's (a glob's folder for a glob)."""
    return path.name if path.is_dir() else path.parent.name or "run"


def _check_across(paths: list[Path], rows: list[int], table: Any) -> None:
    """Refuse a (query, doc) pair listed twice, naming the shard and line of both."""

    qcodes, _ = encode_grouped(table.column("query_id"))
    found, firsts = repeated_ids(qcodes, arrow_column(arrow_strings(table.column("doc_id"))))
    if not len(found):
        return
    starts = np.cumsum([0, *rows])

    def where(row: int) -> tuple[str, int]:
        shard = int(np.searchsorted(starts, row, side="right")) - 1
        return str(paths[shard]), row - int(starts[shard]) + 1

    problems = []
    for row, first in list(zip(found.tolist(), firsts.tolist(), strict=True))[:20]:
        query = table.column("query_id")[row].as_py()
        doc = table.column("doc_id")[row].as_py()
        fault = duplicate_doc(doc, query)
        shard, line = where(row)
        first_shard, first_line = where(first)
        problems.append(
            Problem(
                shard,
                line,
                f"{fault.message} (first listed in {first_shard}, line {first_line})",
                field=fault.field,
                hint=fault.hint,
            )
        )
    raise InputError(problems)


def _as_run(table: Any, name: str, path: str | Path, has_scores: bool, shards: int) -> Any:
    """A :class:`~assay.runs.models.Run` of the joined table, built as the run reader builds
    one (query ids as codes in order of first appearance, doc ids as Arrow strings)."""
    import pandas as pd

    qcodes, qids = encode_grouped(table.column("query_id"))
    docs = arrow_strings(table.column("doc_id"))
    scores = as_numpy(table.column("score"), np.float64)
    frame = pd.DataFrame(
        {"query_id": categorical(qcodes, qids), "doc_id": docs, "score": scores}, copy=False
    )
    metadata = {"format": "shards", "shards": shards, "warnings": []}
    return Run(frame, name=name, path=str(path), has_scores=has_scores, metadata=metadata)
