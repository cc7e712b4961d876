"""Judging data files as procedures: pools, review samples, judging stores, imports.

``judge pool``, ``judge sample``, ``judge serve``, ``judge export``, ``judge
import`` and ``judge sample-queries`` each call one function here. They write
data files (a pool, a review file, judgments, a query set) or build the judging
page, and return what the command reports about them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.behavior.sample import query_set_json, sample_queries
from assay.core.errors import UsageError
from assay.corpora.load import load_corpus
from assay.io.fileio import write_text_atomic
from assay.judges.sample import missing_query_texts, review_sample, write_review
from assay.judging.export import export_judgments
from assay.judging.pool import build_pool, write_pool
from assay.judging.serve import open_store, prepare
from assay.judgments.export import to_jsonl
from assay.judgments.graded_csv import parse_columns
from assay.judgments.load import load_judgments
from assay.procedures.arguments import as_judgments
from assay.runs.io import load_run

if TYPE_CHECKING:
    from assay.judging.export import ExportSummary
    from assay.judging.pool import PoolPair
    from assay.judgments.models import JudgmentSet


class PoolOptions(BaseModel):
    """Which unjudged pairs a pool holds, in which order (TREC depth pooling)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    depth: int = Field(10, description="pool the top DEPTH documents of each run")
    strategy: str = Field(
        "depth", description="order: depth (query order), rank (rank-weighted) or delta"
    )
    budget: int | None = Field(None, description="keep only the first N pairs of the ordering")
    judgments_format: str | None = Field(None, description="format of the judgments (detected)")
    queries: Path | None = Field(None, description="queries file of TREC qrels")
    split: str = Field("test", description="BEIR split of the judgments")


def pool_file(
    judgments: str | Path, runs: Sequence[str | Path], output: str | Path, options: PoolOptions
) -> list[PoolPair]:
    """Write the unjudged (query, doc) pairs in the top ``depth`` of any run to ``output``."""

    kwargs: dict[str, Any] = {"split": options.split}
    if options.queries is not None:
        kwargs["queries"] = options.queries
    js = as_judgments(judgments, options.judgments_format, **kwargs)
    loaded = [load_run(p) for p in runs]
    pairs = build_pool(js, loaded, options.depth, strategy=options.strategy, budget=options.budget)
    write_pool(pairs, output)
    return pairs


class ReviewOptions(BaseModel):
    """Which labels a person reviews, and what the review file shows."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fraction: float = Field(0.2, description="share of the labels to review, in (0, 1]")
    stratify: str = Field(
        "grade", description="stratify by grade, source, query_id, language, query_class or none"
    )
    seed: int = Field(0, description="random seed (same seed, same sample)")
    show_grades: bool = Field(False, description="show the label under review")
    corpus: Path | None = Field(None, description="corpus: put each document's text in the file")
    id_field: str | None = Field(None, description="the corpus field holding document ids")
    text_fields: list[str] | None = Field(None, description="the corpus fields of the text")
    queries: Path | None = Field(None, description="query texts TREC qrels lack (TSV or JSONL)")


@dataclass(frozen=True)
class ReviewSample:
    """The review lines written, and a warning when some lack their query's text."""

    lines: list[dict[str, Any]]
    warning: str | None = None


def review_sample_file(
    labels: str | Path, output: str | Path, options: ReviewOptions
) -> ReviewSample:
    """Write a stratified, reproducible sample of ``labels`` for a person to check."""

    docs = None
    if options.corpus is not None:
        docs = load_corpus(
            options.corpus, id_field=options.id_field, text_fields=options.text_fields
        )
    lines = review_sample(
        labels,
        fraction=options.fraction,
        stratify=options.stratify,
        seed=options.seed,
        show_grades=options.show_grades,
        corpus=docs,
        queries=options.queries,
    )
    write_review(lines, output)
    return ReviewSample(lines, missing_query_texts(lines))


@dataclass(frozen=True)
class ReviewExport:
    """A review export: the file written and how many items people reviewed."""

    path: str
    items: int


def export_store(
    store: str,
    output: str | Path,
    fmt: str = "jsonl",
    *,
    base: str | Path | None = None,
    queries: str | Path | None = None,
) -> ExportSummary | ReviewExport:
    """Write the people's final grades of the judging ``store`` (``fmt`` jsonl or trec, over
    the ``base`` judgment set when given), or their review verdicts (``fmt`` review)."""
    from assay.judging.review import write_review

    opened = open_store(store, must_exist=True)
    if fmt == "review":
        return ReviewExport(str(output), write_review(opened, output))
    js = None
    if base is not None:
        kwargs: dict[str, Any] = {"split": "test"}
        if queries is not None:
            kwargs["queries"] = queries
        js = as_judgments(base, None, **kwargs)
    return export_judgments(opened, output, fmt, base=js)


def import_judgments(
    source: str | Path,
    output: str | Path,
    *,
    columns: str | None = None,
    judgments_format: str | None = None,
) -> JudgmentSet:
    """Convert a judgment file (a graded CSV with ``columns`` named, SRW, any set) to assay
    JSONL qrels at ``output``; return the set read."""

    mapping = parse_columns(columns) if columns else None
    fmt = judgments_format or ("graded-csv" if mapping else None)
    js = load_judgments(source, fmt, columns=mapping)
    write_text_atomic(output, to_jsonl(js))
    return js


def query_set_file(
    events: Sequence[str | Path],
    output: str | Path | None,
    *,
    strategy: str = "pptss",
    n: int = 50,
    seed: int = 0,
    application: str | None = None,
) -> list[tuple[str, str, int]]:
    """Draw ``n`` queries to judge from behaviour logs; write them as an SRW query set to
    ``output`` when given. ``(key, text, searches)`` rows."""

    rows = sample_queries(events, strategy=strategy, n=n, seed=seed, application=application)
    if output is not None:
        name = Path(output).stem
        write_text_atomic(output, query_set_json(rows, name=name, strategy=strategy))
    return rows


class JudgingPageOptions(BaseModel):
    """Who grades a judging page, what it shows, and where it listens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    assessors: list[str] = Field(
        default_factory=list, description="assessor names (or one comma-separated string)"
    )
    overlap: int = Field(1, description="how many assessors grade each pair")
    adjudicators: list[str] = Field(
        default_factory=list, description="names who may set final grades"
    )
    guidelines: Path | None = Field(None, description="guidelines shown beside every pair")
    corpus: Path | None = Field(None, description="corpus holding the documents shown")
    id_field: str | None = Field(None, description="the corpus field holding document ids")
    text_fields: list[str] | None = Field(None, description="the corpus fields shown")
    review: Path | None = Field(None, description="review model grades: a review file")
    show_model_grades: bool = Field(False, description="with a review: show the model's grade")
    host: str = Field("127.0.0.1", description="interface to listen on")
    port: int = Field(8765, description="TCP port to listen on (1 to 65535)")

    @field_validator("assessors", "adjudicators", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        """A comma-separated string of names (as the command line gives them) is split."""
        if isinstance(value, str):
            return [name.strip() for name in value.split(",") if name.strip()]
        return value


@dataclass(frozen=True)
class JudgingPage:
    """The judging application and each person's login link."""

    app: Any
    links: dict[str, str] = field(default_factory=dict)


def judging_page(pool: str | Path | None, store: str, options: JudgingPageOptions) -> JudgingPage:
    """Load the pool (or the review file) into the judging ``store``; the page and its links."""

    if not 0 < options.port < 65536:
        raise UsageError(f"`port` must be between 1 and 65535; got {options.port}", "port")
    app, links = prepare(
        pool,
        store,
        assessors=options.assessors,
        overlap=options.overlap,
        adjudicators=options.adjudicators,
        guidelines=options.guidelines,
        corpus=options.corpus,
        id_field=options.id_field,
        text_fields=options.text_fields,
        base_url=f"http://{options.host}:{options.port}",
        review=options.review,
        show_model_grades=options.show_model_grades,
    )
    return JudgingPage(app, links)
