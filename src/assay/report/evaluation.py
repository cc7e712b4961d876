"""Renderers of an :class:`~assay.results.models.EvaluationResult`: terminal, Markdown, CSV, JSON.

They read the result model only and compute nothing beyond formatting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.words import count, plural
from assay.io.csvout import csv_text
from assay.report.digits import default_digits, exact, fmt
from assay.report.escape import md_cell
from assay.report.policies import policy_lines
from assay.report.table import Column, Table, markdown_table, print_line, print_table

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from assay.results.models import EvaluationResult

#: Show per-query rows in the terminal by default up to this many queries.
PER_QUERY_DEFAULT_LIMIT = 50


def _unknown_provenance(result: EvaluationResult) -> bool:
    """A run file scored with no sidecar of its own (a stale sidecar already has a warning)."""
    r = result.run
    said = any("provenance unknown" in w for w in r.warnings)
    return bool(r.path) and r.system is None and r.config_hash is None and not said


def header_lines(result: EvaluationResult) -> list[str]:
    """The provenance lines every report starts with."""
    j, r = result.judgments, result.run
    answerable = j.total_queries - j.no_answer_queries if j.total_queries else j.queries
    scored = (
        count(j.queries, "scored query")
        if j.queries == answerable
        else f"{j.queries} scored of {count(answerable, 'answerable query')}"
    )
    lines = [
        f"judgments  {j.name} ({j.format}), version {j.version}: {scored}, "
        f"{j.no_answer_queries} no-answer"
        + (f", {j.total_queries} in all" if j.total_queries else ""),
    ]
    known = {k: v for k, v in j.label_sources.items() if k != "unknown"}
    if known:  # sets that record who labelled (human, model, behavior) say so
        lines.append(
            "labels     "
            + ", ".join(f"{source} {n}" for source, n in sorted(j.label_sources.items()))
        )
    if j.synthetic_queries:  # model-written queries score high: say so next to the scores
        overlap = (
            "" if j.synthetic_overlap is None else f", mean word overlap {j.synthetic_overlap:.2f}"
        )
        lines.append(
            f"synthetic  {count(j.synthetic_queries, 'model-written query')}{overlap} with their "
            "documents: compare configurations on them, not absolute levels"
        )
    run = f"run        {r.name}"
    if r.path:
        run += f" ({r.path})"
    if r.system:
        run += f", system {r.system.get('type', '?')}"
    if r.config_hash:
        run += f", config {r.config_hash}"
    if r.corpus_version:
        run += f", corpus {r.corpus_version}"
    if _unknown_provenance(result):
        run += ", provenance unknown (no sidecar)"
    lines.append(run)
    counts = [
        f"{count(r.queries_in_run, 'query')} in run",
        f"{count(r.missing_queries, 'judged query')} missing",
        f"{count(r.ignored_queries, 'run query')} not scored (no-answer or not judged)",
    ]
    if r.failed_queries:
        counts.append(f"{count(len(r.failed_queries), 'FAILED system call')} (not scored)")
    if r.tied_pairs_at_cutoff:
        falls = plural(r.tied_pairs_at_cutoff, "cutoff falls", "cutoffs fall")
        counts.append(f"{r.tied_pairs_at_cutoff} {falls} inside tied scores")
    lines.append("counts     " + ", ".join(counts))
    lines += ["policy     " + line for line in policy_lines(result.policies)]
    for w in [*j.warnings, *r.warnings]:
        lines.append(f"warning    {w}")
    for f in r.failures[:10]:
        error = str(f.get("error"))
        tries = "" if "attempt" in error else f" ({f.get('attempts', '?')} attempts)"
        lines.append(f"failed     {f.get('query_id')}: {error}{tries}")
    if len(r.failures) > 10:
        lines.append(f"failed     ... and {len(r.failures) - 10} more (see the JSON result)")
    ab = result.abstention
    if ab:
        lines.append("abstention " + abstention_text(ab))
    return lines


def abstention_text(ab: dict) -> str:
    """One line on abstention: accuracy on no-answer queries, false abstentions."""

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    return (
        f"below score {ab.get('threshold')}: abstained on "
        f"{ab.get('no_answer_abstained', 0)}/{ab.get('no_answer_queries', 0)} no-answer "
        f"queries (accuracy {rate(ab.get('abstention_accuracy'))}), and on "
        f"{ab.get('answerable_abstained', 0)}/{ab.get('answerable_queries', 0)} answerable "
        f"ones (false-abstention rate {rate(ab.get('false_abstention_rate'))})"
    )


def group_rows(result: EvaluationResult) -> list[tuple[str, str, dict[str, Any]]]:
    """(field, value, row) of the all-queries row (field empty), then of every group."""
    rows: list[tuple[str, str, dict[str, Any]]] = []
    all_row: dict[str, Any] = {"n": result.judgments.queries, **result.aggregate}
    rows.append(("", "all", all_row))
    for field_name, groups in result.groups.items():
        for value, row in groups.items():
            rows.append((field_name, value, row))
    return rows


def scores_table(result: EvaluationResult, digits: int) -> Table:
    """The aggregate row and one row per group, one column per metric."""
    group_label = " / ".join(result.groups) if result.groups else "group"
    cols = [Column(group_label, key=True), Column("n", "right")]
    cols += [Column(m, "right") for m in result.metrics]
    table = Table(cols)
    for field_name, value, row in group_rows(result):
        label = value if len(result.groups) <= 1 or not field_name else f"{field_name}={value}"
        table.add_row(label, str(row["n"]), *(fmt(row.get(m), digits, m) for m in result.metrics))
    return table


def per_query_table(result: EvaluationResult, digits: int) -> Table:
    """One row per scored query: id, metadata, first relevant rank, scores, text."""
    fields = [f for f in ("language", "query_class") if f in result.per_query[0]]
    cols = [Column("query", key=True), *(Column(f) for f in fields), Column("rank", "right")]
    cols += [Column(m, "right") for m in result.metrics]
    cols.append(Column("text", wrap=True))
    table = Table(cols)
    for row in result.per_query:
        rank = row.get("first_rel_rank")
        table.add_row(
            row["query_id"],
            *(str(row.get(f, "")) for f in fields),
            "-" if rank is None else str(rank),
            *(fmt(row.get(m), digits, m) for m in result.metrics),
            row.get("text", ""),
        )
    return table


def render_terminal(
    result: EvaluationResult,
    console: Console | None = None,
    *,
    digits: int | None = None,
    per_query: bool | None = None,
) -> None:
    """Print the report: header, aggregate/groups, per-query, no-answer (see report.table)."""
    from rich.console import Console

    console = console or Console()
    d = default_digits(result.judgments.queries) if digits is None else digits
    for line in header_lines(result):
        print_line(console, line)
    print_line(console, "")
    print_table(scores_table(result, d), console)

    show = per_query if per_query is not None else len(result.per_query) <= PER_QUERY_DEFAULT_LIMIT
    if show and result.per_query:
        print_line(console, "")
        print_table(per_query_table(result, d), console)
    if result.no_answer:
        print_line(console, "")
        print_line(
            console, f"no-answer queries ({len(result.no_answer)}), not in the scores above:"
        )
        for row in result.no_answer:
            got = (
                "FAILED (system call failed; not counted as an abstention)"
                if row.get("failed")
                else "returned nothing"
                if not row.get("returned")
                else f"returned {row['returned']}, top {row['top_doc']}"
                + (f" (score {row['top_score']:.3g})" if row.get("top_score") is not None else "")
            )
            print_line(console, f"  {row['query_id']}  {got}  {row.get('text', '')}")


def render_markdown(result: EvaluationResult, *, digits: int | None = None) -> str:
    """A Markdown report (for a pull-request comment or a log): the header, the scores,
    per-query rows (folded, up to 50 queries, as in the terminal) and no-answer queries."""
    d = default_digits(result.judgments.queries) if digits is None else digits

    out = [f"### assay: {md_cell(result.run.name)} on {md_cell(result.judgments.name)}", ""]
    out += [f"- {line}" for line in header_lines(result)]
    out.append("")
    out.append(markdown_table(scores_table(result, d)).rstrip("\n"))
    if result.per_query and len(result.per_query) <= PER_QUERY_DEFAULT_LIMIT:
        out += ["", "<details><summary>Per query</summary>", ""]
        out += [markdown_table(per_query_table(result, d)).rstrip("\n"), "", "</details>"]
    if result.no_answer:
        out.append("")
        noun = count(len(result.no_answer), "no-answer query")
        out.append(f"{noun} reported apart from the scores:")
        out += [f"- {row['query_id']}: {row.get('text', '')}" for row in result.no_answer]
    return "\n".join(out) + "\n"


def render_csv(result: EvaluationResult) -> str:
    """Per-query rows as CSV, full precision (one column per metric)."""
    fixed = {"query_id", "text", "first_rel_rank", "in_run", *result.metrics}
    meta: list[str] = []
    for row in result.per_query:
        meta += [key for key in row if key not in fixed and key not in meta]
    cols = ["query_id", *meta, "first_rel_rank", "in_run", *result.metrics, "text"]
    # every row says which judgments and policies produced it
    context = {
        "judgments_version": result.judgments.version,
        "run": result.run.name,
        "missing_policy": result.policy.missing,
        "ties_policy": result.policy.ties,
    }
    cols += list(context)

    rows = []
    for row in result.per_query:
        values = {**row, **{m: exact(row.get(m), m) for m in result.metrics}, **context}
        rows.append([values.get(c) for c in cols])
    return csv_text(cols, rows)


def render_json(result: EvaluationResult) -> str:
    """The result file: every number, full precision (per-query values as columns)."""
    return result.to_json()


def render_parquet(result: EvaluationResult) -> bytes:
    """The per-query table as Parquet, the rest of the result in its metadata (read back
    by ``compare``, ``gate`` and ``report``; by pandas, Polars and DuckDB as a table)."""
    return result.parquet_bytes()
