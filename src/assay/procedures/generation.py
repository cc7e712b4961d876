"""Synthetic test material as a procedure: ``generate queries``.

:func:`generate_query_file` asks a model (one
:class:`~assay.procedures.model_options.ModelCallOptions`) for a query per
sampled passage, writes them (JSONL, marked ``source = model``) and returns the
:class:`~assay.generate.queries.SyntheticQueries` result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from assay.corpora.load import load_corpus
from assay.generate.queries import generate_queries
from assay.io.fileio import write_text_atomic
from assay.judgments.load import load_judgments
from assay.procedures.model_options import ModelCallOptions

if TYPE_CHECKING:
    from assay.generate.queries import SyntheticQueries


class QueryGenerationOptions(BaseModel):
    """Which passages are sampled, and which human queries the model's are compared with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(50, description="passages to sample (one query each)")
    seed: int = Field(0, description="sampling seed")
    human: Path | None = Field(
        None, description="human queries and their judgments to compare the model's with"
    )
    id_field: str | None = Field(None, description="the corpus field holding document ids")
    text_fields: list[str] | None = Field(
        None, description="the corpus fields making a passage's text (None: detected)"
    )


def generate_query_file(
    corpus: str | Path,
    output: str | Path | None,
    *,
    calls: ModelCallOptions,
    options: QueryGenerationOptions | None = None,
) -> SyntheticQueries:
    """Ask ``calls.model`` for one query per sampled passage of ``corpus``; dedupe; compare
    with the human queries; write the queries (JSONL) to ``output``."""

    options = options or QueryGenerationOptions()
    judgments = None
    if options.human is not None:
        judgments = load_judgments(options.human)
    with calls.executor_in_force(), calls.open_client() as client:
        result = generate_queries(
            load_corpus(corpus, id_field=options.id_field, text_fields=options.text_fields),
            client,
            n=options.n,
            seed=options.seed,
            human=judgments,
            max_cost=calls.max_cost,
        )
    if output is not None:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows)
        write_text_atomic(output, lines)
        result.output = str(output)
    return result
