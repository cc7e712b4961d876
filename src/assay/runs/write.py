"""Write run files: TREC (``qid Q0 docid rank score tag``) and JSONL, in rank order."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from assay.core.errors import UsageError
from assay.io.fileio import write_bytes_atomic
from assay.io.formats import format_from_name
from assay.runs.markers import FORMATS
from assay.runs.models import Run


# ---------------------------------------------------------------------- write
def write_run(
    run: Run,
    path: str | Path,
    format: str | None = None,
    tag: str | None = None,
    ties: str = "score",
) -> None:
    """Write ``run`` atomically (temp file, then rename) as TREC or JSONL.

    Rows are written in rank order (``ties`` as in :meth:`Run.ranked`). A run
    without scores gets TREC scores ``n - rank + 1`` so that trec_eval keeps
    its order; in JSONL it is written as bare doc ids.
    """

    write_bytes_atomic(path, run_bytes(run, path, format, tag, ties))


def run_bytes(
    run: Run,
    path: str | Path,
    format: str | None = None,
    tag: str | None = None,
    ties: str = "score",
) -> bytes:
    """The bytes :func:`write_run` writes to ``path`` (format from its suffix).

    A TREC run is six whitespace-separated columns per line and nothing else; a
    JSONL run holds one query per line and nothing else. What ties a run to its
    sidecar is recorded in the sidecar (:func:`assay.runs.sidecar.write_run_pair`).
    """
    p = Path(path)
    fmt = format or format_from_name(p, "run") or "trec"
    if fmt not in FORMATS:
        raise UsageError(f"unknown run format {fmt!r}; use one of {', '.join(FORMATS)}")
    ranked = run.ranked(ties)  # type: ignore[arg-type]
    return _trec_bytes(ranked, run, tag) if fmt == "trec" else _jsonl_bytes(ranked, run)


def _ranks(qids: Any) -> np.ndarray:
    import pandas as pd

    codes, _ = pd.factorize(qids)
    return (pd.Series(codes).groupby(codes).cumcount() + 1).to_numpy()


def _trec_bytes(ranked: Any, run: Run, tag: str | None) -> bytes:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    tagname = tag or run.name or "run"
    if re.search(r"\s", tagname):
        raise UsageError(f"run tag {tagname!r} must not contain whitespace")
    n = len(ranked)
    ranks = _ranks(ranked["query_id"]) if n else np.zeros(0, dtype=np.int64)
    if run.has_scores:
        scores = pa.array([repr(float(s)) for s in ranked["score"].to_numpy()], pa.string())
    else:
        codes = _codes(ranked["query_id"])
        sizes = np.bincount(codes)[codes] if n else np.zeros(0, dtype=np.int64)
        scores = pa.array((sizes - ranks + 1).astype(np.int64)).cast(pa.string())
    table = pa.table(
        {
            "q": pa.array(ranked["query_id"].astype(str).to_numpy(), pa.string()),
            "z": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
            "d": pa.array(ranked["doc_id"].astype(str).to_numpy(), pa.string()),
            "r": pa.array(ranks.astype(np.int64)).cast(pa.string()),
            "s": scores,
            "t": pa.array(np.full(n, tagname, dtype=object), pa.string()),
        }
    )
    sink = pa.BufferOutputStream()
    pacsv.write_csv(
        table,
        sink,
        pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    return sink.getvalue().to_pybytes()


def _codes(values: Any) -> np.ndarray:
    """Integer codes of ``values`` in first-appearance order."""
    import pandas as pd

    codes, _ = pd.factorize(values)
    return codes


def _jsonl_bytes(ranked: Any, run: Run) -> bytes:
    out: dict[str, list[Any]] = {}
    for q, d, s in zip(
        ranked["query_id"].astype(str).tolist(),
        ranked["doc_id"].astype(str).tolist(),
        ranked["score"].tolist(),
        strict=True,
    ):
        item: Any = {"doc_id": d, "score": s} if run.has_scores else d
        out.setdefault(q, []).append(item)
    lines = [json.dumps({"query_id": q, "results": r}, ensure_ascii=False) for q, r in out.items()]
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
