"""Per-query values as columns: what an evaluation keeps from the kernels to the file.

A :class:`PerQuery` holds one Arrow column per field: ``query_id``, ``text``,
``first_rel_rank`` (1-based, null when no relevant document was retrieved),
``in_run``, the judgment set's metadata fields (null where a query has no
value) and one ``float64`` column per measure. The measure columns are the
kernels' numpy arrays, shared without a copy; nothing builds one Python object
per query on the way to a result file:

* JSON (:meth:`PerQuery.json_fragment`): each column one JSON array, numbers
  written from numpy by ``orjson``, strings escaped and joined by Arrow;
* Parquet (:meth:`assay.results.models.EvaluationResult.parquet_bytes`): the Arrow table itself.

Row access (``per_query[0]["nDCG@10"]``, iteration) still gives
:class:`QueryRow` models, built on demand, for renderers of
small results and for code written against the row form.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# The column helpers (typing from JSON, writing JSON arrays) live in assay.io.columnio;
# _chunk and _json_array are also read from here (assay.stats).
from assay.io.columnio import _chunk as _chunk
from assay.io.columnio import _column, _default, _floats, _pa, _text_array
from assay.io.columnio import _joined as _joined
from assay.io.columnio import _json_array as _json_array
from assay.io.columnio import _text as _text

#: Declared fields, in file order; every other column is metadata or a measure.
DECLARED = ("query_id", "text", "first_rel_rank", "in_run")


class ItemAccess:
    """``row["field"]``, ``row.get("field")`` and ``"field" in row`` on a result row model.

    Per-query rows carry one key per metric and per metadata field (declared by the
    result's ``metrics`` and the judgment set), so renderers read them by name.
    """

    def _values(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data.update(getattr(self, "__pydantic_extra__", None) or {})
        return data

    def __getitem__(self, key: str) -> Any:
        values = self._values()
        if key not in values:
            raise KeyError(key)
        return values[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        return self._values().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._values()

    def keys(self) -> list[str]:
        """Field names, declared fields first."""
        return list(self._values())

    def __iter__(self) -> Any:  # iterate like a mapping: over field names
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())

    def items(self) -> list[tuple[str, Any]]:
        """``(field, value)`` pairs, declared fields first."""
        return list(self._values().items())


class QueryRow(ItemAccess, BaseModel):
    """One scored query: its id, text, rank of the first relevant document, and values.

    Besides the declared fields a row holds one key per metadata field of the
    judgment set (left out when the query has no value) and one per metric name.
    """

    model_config = ConfigDict(extra="allow")

    query_id: str
    text: str = ""
    first_rel_rank: int | None = Field(
        None, description="1-based rank of the first relevant document; None: none retrieved"
    )
    in_run: bool = True


class ColumnsField:
    """A pydantic field type held as columns: validated by ``cls.coerce`` (itself, columns
    or rows), serialised by ``to_columns()`` (the JSON form). Subclasses define both."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Validated from itself, columns or rows; serialised as columns."""
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            cls.coerce,  # type: ignore[attr-defined]
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda v: cls.coerce(v).to_columns(),  # type: ignore[attr-defined]
                when_used="always",
            ),
        )


class PerQuery(ColumnsField):
    """Per-query values as an Arrow table (see the module docstring).

    ``metrics`` names the measure columns (``float64``, NaN where a value is
    missing); the other extra columns are metadata, whose nulls mean "no value".
    """

    __slots__ = ("metrics", "table")

    def __init__(self, table: Any, metrics: Sequence[str] = ()) -> None:
        self.table = table
        self.metrics = tuple(m for m in metrics if m in table.column_names)

    # ------------------------------------------------------------------ building
    @classmethod
    def empty(cls) -> PerQuery:
        """No query: the declared columns only."""
        pa = _pa()
        schema = pa.schema(
            [
                ("query_id", pa.string()),
                ("text", pa.string()),
                ("first_rel_rank", pa.int64()),
                ("in_run", pa.bool_()),
            ]
        )
        return cls(schema.empty_table())

    @classmethod
    def from_arrays(
        cls,
        query_id: Any,
        text: Any,
        first_rel_rank: Any,
        in_run: Any,
        metadata: Mapping[str, Any],
        values: Mapping[str, Any],
    ) -> PerQuery:
        """From checked arrays: ids and texts (Arrow or lists), ``first_rel_rank`` as int64
        with 0 for "none retrieved", ``in_run`` bool, metadata (Arrow, nulls for no value)
        and one float64 numpy array per measure (shared, not copied)."""
        import numpy as np

        pa = _pa()
        first = np.asarray(first_rel_rank, dtype=np.int64)
        columns = {
            "query_id": _text_array(query_id),
            "text": _text_array(text),
            "first_rel_rank": pa.array(first, mask=first <= 0),
            "in_run": pa.array(np.asarray(in_run, dtype=bool)),
        }
        for key, v in metadata.items():
            v = v if isinstance(v, pa.Array) else pa.array(v)
            columns[key] = v.cast(pa.string()) if pa.types.is_large_string(v.type) else v
        for name, v in values.items():
            columns[name] = pa.array(np.ascontiguousarray(v, dtype=np.float64))
        return cls(pa.table(columns), list(values))

    @classmethod
    def from_columns(
        cls, columns: Mapping[str, Sequence[Any]], metrics: Sequence[str] = ()
    ) -> PerQuery:
        """From ``{field: [value per query]}`` (the JSON form); types follow the field."""
        pa = _pa()
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"per_query columns differ in length: {sorted(lengths)}")
        n = lengths.pop() if lengths else 0
        out: dict[str, Any] = {}
        for name in (*DECLARED, *(k for k in columns if k not in DECLARED)):
            values = columns.get(name)
            if values is None:
                if name not in DECLARED:
                    continue
                values = _default(name, n)
            out[name] = _column(name, values, name in metrics)
        if "query_id" in out and out["query_id"].null_count:
            raise ValueError("per_query: query_id must be a string for every query")
        return cls(pa.table(out), metrics)

    @classmethod
    def from_rows(cls, rows: Iterable[Any], metrics: Sequence[str] = ()) -> PerQuery:
        """From row mappings or models (the form of schema version 1)."""
        return cls.from_columns(rows_to_columns(rows), metrics)

    @classmethod
    def coerce(cls, value: Any, metrics: Sequence[str] = ()) -> PerQuery:
        """A :class:`PerQuery` from itself, a columns mapping, or rows."""
        if isinstance(value, PerQuery):
            return value if not metrics else value.typed(metrics)
        if isinstance(value, Mapping):
            return cls.from_columns(value, metrics)
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise ValueError("per_query must be columns (an object of arrays) or a list of rows")
        return cls.from_rows(value, metrics)

    def typed(self, metrics: Sequence[str]) -> PerQuery:
        """The same values with ``metrics`` as float64 columns (nulls as NaN)."""
        pa = _pa()
        names = [m for m in metrics if m in self.table.column_names]
        if tuple(names) == self.metrics:
            return self
        table = self.table
        for m in names:
            col = table.column(m)
            if col.type != pa.float64() or col.null_count:
                at = table.column_names.index(m)
                table = table.set_column(at, m, _floats(col.to_pylist()))
        return PerQuery(table, names)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """JSON schema: an object of equally long arrays, one per field."""
        return {
            "type": "object",
            "description": "per-query values as columns: query_id, text, first_rel_rank, "
            "in_run, metadata fields, one array per measure",
            "additionalProperties": {"type": "array"},
        }

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return self.table.num_rows

    def __bool__(self) -> bool:
        return self.table.num_rows > 0

    @property
    def columns(self) -> list[str]:
        """Column names: declared fields, metadata, measures."""
        return list(self.table.column_names)

    @property
    def metadata_fields(self) -> list[str]:
        """The metadata columns (neither declared nor a measure)."""
        return [c for c in self.table.column_names if c not in DECLARED and c not in self.metrics]

    def column(self, name: str) -> Any:
        """One column as numpy (zero-copy for measures and ``in_run``); KeyError if absent.

        ``first_rel_rank`` gives float64 with NaN for "none retrieved"; string
        columns give an object array.
        """
        import numpy as np

        if name not in self.table.column_names:
            raise KeyError(name)
        col = self.table.column(name)
        pa = _pa()
        if pa.types.is_floating(col.type) and not col.null_count:
            return _chunk(col).to_numpy(zero_copy_only=False)
        if pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
            return _chunk(col).to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        return _chunk(col).to_numpy(zero_copy_only=False)

    def ids(self) -> list[str]:
        """Query ids as a list (one Python string per query: not for the hot path)."""
        return self.table.column("query_id").to_pylist()

    def frame(self) -> Any:
        """A pandas DataFrame indexed by ``query_id``: measure columns are views of the
        same memory (no copy), strings stay in their Arrow buffers."""
        import pandas as pd

        data: dict[str, Any] = {}
        for name in self.table.column_names:
            col = _chunk(self.table.column(name))
            if name in self.metrics or (name == "in_run" and not col.null_count):
                data[name] = col.to_numpy(zero_copy_only=False)
            elif name == "first_rel_rank":
                data[name] = self.column(name)
            elif _pa().types.is_string(col.type) or _pa().types.is_large_string(col.type):
                data[name] = pd.array(col, dtype=pd.StringDtype("pyarrow"))
            else:
                data[name] = col.to_pandas()
        frame = pd.DataFrame(data, copy=False)
        return frame.set_index("query_id", drop=True)

    def row(self, i: int) -> Any:
        """Query ``i`` as a :class:`QueryRow` (metadata nulls left out)."""
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("per_query row out of range")
        values = {name: self.table.column(name)[i].as_py() for name in self.table.column_names}
        return _row_model(QueryRow, values, self.metrics)

    def rows(self) -> list[Any]:
        """Every query as a :class:`QueryRow` (for small results)."""
        columns = self.table.to_pydict()
        names = list(columns)
        return [
            _row_model(QueryRow, dict(zip(names, values, strict=True)), self.metrics)
            for values in zip(*columns.values(), strict=True)
        ]

    def rows_at(self, positions: Sequence[int] | Any) -> list[Any]:
        """The queries at ``positions`` as :class:`QueryRow` models."""
        pa = _pa()
        return PerQuery(self.table.take(pa.array(positions, pa.int64())), self.metrics).rows()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows())

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self.rows())

    def __getitem__(self, key: int | slice) -> Any:
        if isinstance(key, slice):
            return self.rows()[key]
        return self.row(key)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PerQuery):
            return self.to_columns() == other.to_columns()
        if isinstance(other, list):
            return self.rows() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PerQuery({len(self)} queries, columns {self.columns})"

    # ------------------------------------------------------------------ writing
    def to_columns(self) -> dict[str, list[Any]]:
        """``{field: [value per query]}`` with None for NaN (the JSON form, as Python)."""
        import math

        out = self.table.to_pydict()
        for m in self.metrics:
            out[m] = [None if v is None or math.isnan(v) else v for v in out[m]]
        return out

    def json_fragment(self, indent: int | None = 2) -> bytes:
        """The JSON object of the columns, written from the columns (see the module
        docstring): one line per column when ``indent`` is given."""
        import orjson

        parts = []
        for name in self.table.column_names:
            key = orjson.dumps(name)
            parts.append(key + b": " + _json_array(self.table.column(name)))
        if indent is None:
            return b"{" + b",".join(parts) + b"}"
        pad = b"\n" + b" " * (2 * indent)
        return b"{" + pad + (b"," + pad).join(parts) + b"\n" + b" " * indent + b"}"


# ---------------------------------------------------------------------- rows
def rows_to_columns(rows: Iterable[Any]) -> dict[str, list[Any]]:
    """Row mappings (or row models) as ``{field: [value per row]}``, fields in first-seen
    order after the declared ones; a field a row lacks is None there."""
    rows = [r.model_dump() if hasattr(r, "model_dump") else dict(r) for r in rows]
    names = list(DECLARED)
    seen = set(names)
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                names.append(k)
    out: dict[str, list[Any]] = {k: [r.get(k) for r in rows] for k in names}
    if rows:
        for k, default in (("text", ""), ("in_run", True)):
            out[k] = [default if v is None else v for v in out[k]]
    return out


def _row_model(cls: Any, values: dict[str, Any], metrics: Sequence[str]) -> Any:
    """A row model from one query's values: metadata nulls left out, as rows always were."""
    import math

    declared = {k: values.pop(k) for k in DECLARED if k in values}
    extra = {}
    for k, v in values.items():
        if k in metrics:
            extra[k] = None if v is not None and math.isnan(v) else v
        elif v is not None:
            extra[k] = v
    row = cls.model_construct(**declared)
    row.__pydantic_extra__ = extra
    return row
