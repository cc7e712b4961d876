"""The matrix pages: the grid with a legend and a filter; a cell opens its repeats (output,
each assertion's result and reason, tokens, latency, cost) and the case's question and evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.io.fileio import locate
from assay.io.textio import parse_json
from assay.report.html import charts
from assay.report.html.pages import Links, Page, number
from assay.report.plotly_page import chart_spec
from assay.stats.corrections import LABELS


def state(cell: Any) -> str:
    """``pass``, ``fail``, ``flaky`` or ``none`` (no repeat ran)."""
    if cell is None or cell.n == 0:
        return "none"
    return "pass" if cell.pass_all else ("flaky" if cell.flaky else "fail")


def matrix_page(result: Any, links: Links, cases: dict[str, Any] | None = None) -> Page:
    """The grid, the variants, the comparisons; in a file, every cell's repeats too."""

    names = [v.variant for v in result.variants]
    grid = []
    for ci, cid in enumerate(result.case_ids):
        cells = []
        for vi, name in enumerate(names):
            cell = result.cell(name, cid)
            text = f"{cell.passes}/{cell.n}" if cell is not None else "–"
            cells.append({"state": state(cell), "text": text, "href": links.cell(vi, ci)})
        states = {c["state"] for c in cells}
        grid.append(
            {
                "case": cid,
                "kind": result.case_kinds.get(cid, ""),
                "cells": cells,
                "failing": "fail" in states,
                "flaky": "flaky" in states,
            }
        )
    variants = [
        {
            "name": v.variant,
            "provider": v.provider_kind,
            "pass_rate": number(v.pass_rate, digits=3),
            "pass_all": number(v.pass_all_rate, digits=3),
            "flaky": v.flaky_cells,
            "tokens": f"{v.usage.input_tokens}/{v.usage.output_tokens}",
            "cost": money(v.usage.cost),
            "latency": number(v.latency_mean, digits=3),
        }
        for v in result.variants
    ]
    details = []
    if not links.served:  # one file: every cell's details below the grid
        for ci, cid in enumerate(result.case_ids):
            for vi, name in enumerate(names):
                cell = result.cell(name, cid)
                if cell is not None:
                    details.append(cell_values(result, cell, vi, ci, (cases or {}).get(cid)))

    return Page(
        template="matrix.html",
        title=f"Matrix: {result.name}",
        values={
            "r": result,
            "names": names,
            "grid": grid,
            "variants": variants,
            "details": details,
            "adjusted": LABELS.get(result.correction, result.correction),
        },
        charts={"pass-rates": chart_spec(charts.pass_rates(result))},
    )


def money(value: float | None) -> str:
    """A cost in US dollars with the digits it needs (never ``0.000000`` for a small cost)."""
    if value is None:
        return "–"
    if value == 0:
        return "$0"
    return f"${value:.4f}" if value >= 0.01 else f"${value:.2g}"


def cell_values(result: Any, cell: Any, vi: int, ci: int, case: Any) -> dict[str, Any]:
    """The template values of one cell: its repeats and its case."""
    repeats = [
        {
            "n": a.repeat + 1,
            "passed": a.passed,
            "status": a.status,
            "content": a.content,
            "error": a.error,
            "assertions": _assertions(a.assertions, a.reasons),
            "reasons": a.reasons,
            "tokens": f"{a.input_tokens} in / {a.output_tokens} out",
            "latency": f"{a.latency:.3f} s",
            "cost": money(a.cost),
            "cached": a.cached,
        }
        for a in cell.attempts
    ]
    return {
        "cell": cell,
        "vi": vi,
        "ci": ci,
        "state": state(cell),
        "repeats": repeats,
        "case": case,
        "anchor": f"cell-{vi}-{ci}",
    }


def _assertions(outcomes: dict[str, bool | None], reasons: list[str]) -> list[tuple]:
    """``(name, result, reason)`` per assertion: when one assertion failed, the repeat's
    reasons are its reasons; otherwise they are listed for the repeat as a whole."""
    failed = [name for name, ok in outcomes.items() if ok is False]
    words = {True: "pass", False: "fail", None: "not applied"}
    return [
        (name, words[ok], "; ".join(reasons) if failed == [name] else "")
        for name, ok in outcomes.items()
    ]


def read_cases(result: Any, folders: list[Path]) -> dict[str, Any] | None:
    """The matrix's cases by id, from ``cases_path`` when the file is here."""

    if result.config_path:
        folders = [*folders, Path(result.config_path).parent]
    path = locate(result.cases_path, folders)
    if path is None:
        return None
    out: dict[str, Any] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                record = parse_json(line)
            except ValueError:  # JSONDecodeError and the bounded parser's errors
                continue
            if isinstance(record, dict) and "case_id" in record:
                out[str(record["case_id"])] = record
    return out


def cell_page(result: Any, vi: int, ci: int, links: Links, cases: dict[str, Any] | None) -> Page:
    """One matrix cell on its own page."""
    name, cid = result.variants[vi].variant, result.case_ids[ci]
    cell = result.cell(name, cid)
    values = cell_values(result, cell, vi, ci, (cases or {}).get(cid)) if cell else None
    return Page(
        template="cell.html",
        title=f"{cid} × {name}",
        values={"r": result, "d": values, "cases_known": cases is not None, "back": links.result()},
    )
