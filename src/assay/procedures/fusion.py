"""``assay fuse`` as a library procedure: fuse run files and write the fused run.

:func:`fuse` checks the :class:`FuseOptions`, fuses the files query by query
(:func:`assay.systems.fusion.fuse_files`, ranks read from the files as pyserini
does) and writes the fused run in its given order. It returns the
:class:`FusedRun` written: data, not a result model (the command is listed in
:data:`assay.procedures.registry.NO_RESULT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.bounds import one_of
from assay.io.formats import format_from_name
from assay.runs.io import FORMATS, write_run
from assay.systems.fusion import FUSION_METHODS, fuse_files


class FuseOptions(BaseModel):
    """How run files are fused and the fused run written."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: str = Field(
        "rrf",
        description="rrf | weighted | combsum | combmnz | minmax (normalize) | interpolation "
        "| average",
    )
    k_rrf: int = Field(60, description="RRF constant k")
    weights: list[float] | None = Field(None, description="weight per run (weighted, minmax)")
    alpha: float = Field(0.5, description="interpolation weight")
    depth: int = Field(1000, description="entries read from each run")
    limit: int = Field(1000, description="entries kept per query")
    tag: str = Field("fused", description="run tag of the fused run")
    format: str | None = Field(
        None, description="run format written: trec or jsonl (None: from the file name)"
    )


@dataclass(frozen=True)
class FusedRun:
    """A fused run and where (and in which format) it was written."""

    run: Any
    path: Path
    format: str
    method: str
    inputs: int


def fuse(runs: Sequence[str | Path], output: str | Path, options: FuseOptions) -> FusedRun:
    """Fuse the TREC run files ``runs`` and write the fused run to ``output`` (atomically).

    The format is ``options.format``, else the one ``output``'s name implies,
    else TREC; an unknown format or method is a :class:`~assay.core.errors.UsageError`.
    """

    if options.format is not None:
        one_of("format", options.format, FORMATS)
    fmt = options.format or format_from_name(output, "run") or "trec"
    one_of("method", options.method, FUSION_METHODS)
    fused = fuse_files(
        runs, method=options.method, k_rrf=options.k_rrf, weights=options.weights,  # type: ignore[arg-type]
        alpha=options.alpha, depth=options.depth, limit=options.limit, name=options.tag,
    )  # fmt: skip
    write_run(fused, output, format=fmt, tag=options.tag, ties="given")
    return FusedRun(fused, Path(output), fmt, options.method, len(runs))
