"""Read a free-text cases file as it is: which format it is, and its rows.

``read_text_cases`` takes JSONL, a JSON array, CSV, Parquet, a Hugging Face
``datasets`` folder written by ``save_to_disk`` (its Arrow files read with
pyarrow; the ``datasets`` package is not needed) and OTLP JSON traces. The format
(``ragas``, ``deepeval``, ``otlp`` or assay's own structured ``cases``) is told
from the first row's keys unless it is given. Every problem is collected with
file, line (or row, or span id) and field and raised as one
:class:`~assay.core.errors.InputError`: nothing is half-read.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from assay.answers.load import cases_version
from assay.answers.otlp import read_traces
from assay.answers.text import FIELDS, LIST_FIELDS, TextCase, TextCaseSet, map_row
from assay.core.errors import InputError, Problem, ProblemLog, collecting
from assay.io.formats import first_line, sniff_line
from assay.io.textio import csv_table, json_lines, parse_json, read_text

#: Formats ``--input-format`` takes.
INPUT_FORMATS = ("cases", "ragas", "deepeval", "otlp")
#: One row: its 1-based line (``None`` when the source has none), its place in words, the object.
Row = tuple[int | None, str, dict[str, Any]]


def detect_format(path: str | Path) -> str:
    """The format of ``path`` told from its first row's keys (see :data:`INPUT_FORMATS`)."""
    p = Path(path)
    if not p.exists():
        return "cases"  # its loader says the file is not found
    if p.is_file() and p.suffix.lower() not in (".csv", ".parquet"):
        first = _first_json(p)
        if not isinstance(first, dict) or "expected_status" in first or "support" in first:
            return "cases"  # assay's own cases (an empty or malformed file: its loader says why)
        if "resourceSpans" in first:
            return "otlp"
    keys = set(_first_keys(p))
    return format_of_keys(keys, p)


def format_of_keys(keys: set[str], path: Path) -> str:
    """``ragas`` or ``deepeval`` from the keys of a row; an :class:`InputError` otherwise."""
    if keys & {"actual_output", "retrieval_context"}:
        return "deepeval"
    if keys & set(k for ks in FIELDS["ragas"].values() for k in ks):
        return "ragas"
    raise InputError(
        [
            Problem(
                str(path),
                None,
                f"cannot tell the format from the fields {', '.join(sorted(keys)) or '(none)'}",
                hint="ragas rows hold user_input and response, deepeval test cases input and "
                "actual_output, OTLP traces resourceSpans; or name it with --input-format",
            )
        ]
    )


def read_text_cases(path: str | Path, fmt: str) -> TextCaseSet:
    """Read ``path`` in ``fmt`` (``ragas``, ``deepeval`` or ``otlp``) as free-text cases."""
    p = Path(path)
    if not p.exists():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])
    with collecting(p.name) as log:
        if fmt == "otlp":
            cases, raws = read_traces(p, log)
        else:
            cases, raws = _map_rows(_rows(p, log), fmt, log)
        if not cases and not log.problems:
            log.add(None, "no cases in the file", hint="write one case per row")

    return TextCaseSet(tuple(cases), fmt, path=str(p), name=p.stem, version=cases_version(raws))


def _map_rows(rows: Iterator[Row], fmt: str, log: ProblemLog) -> tuple[list[TextCase], list[dict]]:
    cases: list[TextCase] = []
    raws: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for line, place, obj in rows:
        case = map_row(obj, fmt, line, place, log)
        if case is None:
            continue
        if case.case_id in seen:
            log.add(
                line,
                f"duplicate case id {case.case_id!r} (first at {seen[case.case_id]})",
                field="id",
                hint="give every case its own id",
            )
            continue
        seen[case.case_id] = place
        cases.append(case)
        raws.append(obj)
    return cases, raws


# ------------------------------------------------------------------ sources
def _rows(p: Path, log: ProblemLog) -> Iterator[Row]:
    if p.is_dir():
        yield from _dataset_folder(p, log)
        return
    suffix = p.suffix.lower()
    if suffix == ".csv":
        yield from _csv_rows(p, log)
    elif suffix == ".parquet":
        yield from _table_rows(_read_parquet(p, log), "")
    else:
        yield from _json_rows(p, log)


def _json_rows(p: Path, log: ProblemLog) -> Iterator[Row]:

    text = read_text(p, log)
    if text is None:
        return

    if sniff_line(first_line(p))[1] == "json":  # a JSON array (deepeval's save_as)
        try:
            items = parse_json(text)
        except json.JSONDecodeError as exc:
            log.add(exc.lineno, f"malformed JSON: {exc.msg}", hint="check the JSON array")
            return
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                log.add(
                    None,
                    f"item {i} is not an object",
                    field=f"[{i}]",
                    hint="a JSON array of test cases holds one object per case",
                )
                continue
            yield None, f"item {i}", item
        return
    for number, obj in json_lines(text, log, what="case"):
        yield number, f"line {number}", obj


def _csv_rows(p: Path, log: ProblemLog) -> Iterator[Row]:

    text = read_text(p, log)
    if text is None:
        return
    header, rows = csv_table(text, log)
    if header is None:
        log.add(None, "empty file: no header", hint="write a header row of field names")
        return
    lists = {k for name in LIST_FIELDS for fmt in FIELDS.values() for k in fmt[name]}
    for line, cells in rows:
        obj: dict[str, Any] = {}
        for name, cell in zip(header[1], cells, strict=True):
            obj[name] = _csv_list(cell, name, line, log) if name in lists else (cell or None)
        yield line, f"line {line}", obj


def _csv_list(cell: str, name: str, line: int, log: ProblemLog) -> Any:
    """A list column as ragas and pandas write it: ``['a', 'b']`` (Python) or JSON."""

    text = cell.strip()
    if not text:
        return None
    try:
        value = parse_json(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = cell
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list):
        log.add(
            line,
            f"{name} must be a list, written ['...', '...'] or as JSON, got {cell[:40]!r}",
            field=name,
            hint="write the list as ragas writes it: ['first', 'second']",
        )
        return None
    return value


def _read_parquet(p: Path, log: ProblemLog) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.read_table(p)
    except Exception as exc:  # pyarrow raises several types for a bad file
        log.add(None, f"not a readable Parquet file: {exc}", hint="write it with pandas or pyarrow")
        return None


def _table_rows(table: Any, label: str) -> Iterator[Row]:
    if table is None:
        return
    for i, obj in enumerate(table.to_pylist(), start=1):
        yield None, f"{label}row {i}", obj


def _dataset_folder(p: Path, log: ProblemLog) -> Iterator[Row]:
    """A ``save_to_disk`` folder: ``state.json`` naming Arrow files, or ``dataset_dict.json``
    naming split folders (each row then gets a ``split`` field)."""
    splits = _json_file(p / "dataset_dict.json", log)
    if isinstance(splits, dict) and isinstance(splits.get("splits"), list):
        for split in splits["splits"]:
            for line, place, obj in _dataset_split(p / str(split), f"{split} ", log):
                yield line, place, {**obj, "split": split}
        return
    yield from _dataset_split(p, "", log)


def _dataset_split(p: Path, label: str, log: ProblemLog) -> Iterator[Row]:
    state = _json_file(p / "state.json", log, required=True)
    files = state.get("_data_files") if isinstance(state, dict) else None
    if not isinstance(files, list) or not all(
        isinstance(f, dict) and "filename" in f for f in files
    ):
        if state is not None:
            log.add(
                None,
                "state.json has no _data_files list",
                field="_data_files",
                path=str(p / "state.json"),
                hint="save the dataset with save_to_disk",
            )
        return
    import pyarrow as pa

    tables = []
    for entry in files:
        arrow = p / str(entry["filename"])
        try:
            with pa.memory_map(str(arrow)) as source:
                tables.append(pa.ipc.open_stream(source).read_all())
        except (OSError, pa.ArrowInvalid) as exc:
            log.add(
                None,
                f"unreadable Arrow file: {exc}",
                path=str(arrow),
                hint="save the dataset again with save_to_disk",
            )
    if tables and len(tables) == len(files):
        yield from _table_rows(pa.concat_tables(tables, promote_options="default"), label)


def _json_file(p: Path, log: ProblemLog, required: bool = False) -> Any:
    if not p.is_file():
        if required:
            log.add(
                None,
                "not a dataset folder: no state.json",
                path=str(p),
                hint="give a folder written by datasets' save_to_disk, or a file",
            )
        return None

    try:
        return parse_json(p.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.add(None, f"malformed JSON: {exc}", path=str(p), hint="save the dataset again")
        return None


# ------------------------------------------------------------- detection
def _first_json(p: Path) -> Any:
    """The first JSON object of a JSONL file, or of a JSON file (the first item of an array)."""

    try:
        value = parse_json(first_line(p))
    except json.JSONDecodeError:
        try:
            value = parse_json(p.read_bytes())
        except (OSError, ValueError):
            return None
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _first_keys(p: Path) -> list[str]:
    """Field names of the first row (the header, the schema or the first object)."""
    if p.is_dir():
        info = p / "dataset_info.json"
        splits = _peek_json(p / "dataset_dict.json")
        if isinstance(splits, Mapping) and splits.get("splits"):
            info = p / str(splits["splits"][0]) / "dataset_info.json"
        features = _peek_json(info)
        return list((features or {}).get("features", {}) or {})
    if p.suffix.lower() == ".csv":
        return [c.strip() for c in first_line(p).split(",")]
    if p.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(p).names)
        except Exception:  # unreadable: the reader says why
            return ["response"]
    first = _first_json(p)
    return list(first) if isinstance(first, dict) else []


def _peek_json(p: Path) -> Any:

    try:
        return parse_json(p.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
