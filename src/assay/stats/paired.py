"""A comparison's per-query data as columns (see :mod:`assay.results.perquery` for evaluations).

:class:`PairedColumns` keeps, for the paired queries in baseline order, their
ids and texts (Arrow), each slice field's raw value, each system's value of
each metric and each candidate's delta (numpy float64), and each system's
first relevant rank. Its JSON form mirrors the row model
:class:`~assay.stats.models.PairedQuery` with arrays at the leaves::

    {"query_id": [...], "text": [...], "slices": {field: [...]},
     "values": {system: {metric: [...]}}, "deltas": {candidate: {metric: [...]}},
     "first_rel_rank": {system: [...]}}

Rows (``per_query[0].deltas[...]``, iteration) are built on demand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, Field

from assay.results.perquery import ColumnsField, _json_array

_NESTED = ("values", "deltas")


class PairedQuery(BaseModel):
    """One paired query: every system's value on every metric, and the deltas."""

    query_id: str
    text: str = ""
    slices: dict[str, str | None] = Field(default_factory=dict)
    values: dict[str, dict[str, float]] = Field(description="system -> metric -> value")
    deltas: dict[str, dict[str, float]] = Field(description="candidate -> metric -> delta")
    first_rel_rank: dict[str, int | None] = Field(default_factory=dict)


class PairedColumns(ColumnsField):
    """Per-query columns of a comparison (see the module docstring)."""

    __slots__ = ("first_rel_rank", "query_id", "slices", "text", "values")

    def __init__(
        self,
        query_id: Any,
        text: Any,
        slices: Mapping[str, Any],
        values: Mapping[str, Mapping[str, Any]],
        deltas: Mapping[str, Mapping[str, Any]],
        first_rel_rank: Mapping[str, Any],
    ) -> None:
        import numpy as np
        import pyarrow as pa

        def floats(v: Any) -> Any:
            return (
                np.array([np.nan if x is None else x for x in v], dtype=np.float64)
                if (isinstance(v, list))
                else np.asarray(v, dtype=np.float64)
            )

        def arrow(v: Any, kind: Any) -> Any:
            return v if isinstance(v, pa.Array) else pa.array(list(v), kind)

        self.query_id = arrow(query_id, pa.string())
        self.text = arrow(text, pa.string())
        self.slices = {f: arrow(v, pa.string()) for f, v in slices.items()}
        self.values = {
            "values": {s: {m: floats(v) for m, v in ms.items()} for s, ms in values.items()},
            "deltas": {c: {m: floats(v) for m, v in ms.items()} for c, ms in deltas.items()},
        }
        self.first_rel_rank = {s: arrow(v, pa.int64()) for s, v in first_rel_rank.items()}

    # ------------------------------------------------------------------ building
    @classmethod
    def empty(cls) -> PairedColumns:
        """No paired query."""
        return cls([], [], {}, {}, {}, {})

    @classmethod
    def from_rows(cls, rows: Iterable[Any]) -> PairedColumns:
        """From :class:`~assay.stats.models.PairedQuery` rows or their dicts (schema 1)."""
        rows = [r.model_dump() if hasattr(r, "model_dump") else dict(r) for r in rows]
        return cls.from_columns(rows_to_columns(rows))

    @classmethod
    def from_columns(cls, data: Mapping[str, Any]) -> PairedColumns:
        """From the JSON form."""
        ids = list(data.get("query_id") or [])
        text = data.get("text")
        return cls(
            ids,
            ["" if t is None else t for t in text] if text is not None else [""] * len(ids),
            dict(data.get("slices") or {}),
            dict(data.get("values") or {}),
            dict(data.get("deltas") or {}),
            dict(data.get("first_rel_rank") or {}),
        )

    @classmethod
    def coerce(cls, value: Any) -> PairedColumns:
        """Itself, the JSON form (a mapping), or rows."""
        if isinstance(value, PairedColumns):
            return value
        if isinstance(value, Mapping):
            return cls.from_columns(value)
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise ValueError("per_query must be columns (an object of arrays) or a list of rows")
        return cls.from_rows(value)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """JSON schema: the columns object."""
        return {"type": "object", "description": "per-query values as columns"}

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self.query_id)

    def __bool__(self) -> bool:
        return len(self) > 0

    def to_columns(self) -> dict[str, Any]:
        """The JSON form as Python values (None for NaN)."""
        import math

        def listed(v: Any) -> list[Any]:
            return [None if math.isnan(x) else x for x in v.tolist()]

        return {
            "query_id": self.query_id.to_pylist(),
            "text": self.text.to_pylist(),
            "slices": {f: v.to_pylist() for f, v in self.slices.items()},
            **{
                key: {
                    s: {m: listed(v) for m, v in ms.items()} for s, ms in self.values[key].items()
                }
                for key in _NESTED
            },
            "first_rel_rank": {s: v.to_pylist() for s, v in self.first_rel_rank.items()},
        }

    def rows(self) -> list[Any]:
        """Every paired query as a :class:`~assay.stats.models.PairedQuery`."""
        cols = self.to_columns()
        out = []
        for j, q in enumerate(cols["query_id"]):
            out.append(
                PairedQuery.model_construct(
                    query_id=q,
                    text=cols["text"][j],
                    slices={f: v[j] for f, v in cols["slices"].items()},
                    values={
                        s: {m: v[j] for m, v in ms.items()} for s, ms in cols["values"].items()
                    },
                    deltas={
                        c: {m: v[j] for m, v in ms.items()} for c, ms in cols["deltas"].items()
                    },
                    first_rel_rank={s: v[j] for s, v in cols["first_rel_rank"].items()},
                )
            )
        return out

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows())

    def __getitem__(self, key: int | slice) -> Any:
        return self.rows()[key]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PairedColumns):
            return self.to_columns() == other.to_columns()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PairedColumns({len(self)} queries)"

    # ------------------------------------------------------------------ writing
    def json_fragment(self) -> bytes:
        """The JSON form, written from the columns (no Python object per query)."""
        import pyarrow as pa

        def obj(items: dict[str, bytes]) -> bytes:
            import orjson

            return b"{" + b",".join(orjson.dumps(k) + b":" + v for k, v in items.items()) + b"}"

        def floats(v: Any) -> bytes:
            return _json_array(pa.array(v))

        parts = {
            "query_id": _json_array(self.query_id),
            "text": _json_array(self.text),
            "slices": obj({f: _json_array(v) for f, v in self.slices.items()}),
        }
        for key in _NESTED:
            parts[key] = obj(
                {
                    s: obj({m: floats(v) for m, v in ms.items()})
                    for s, ms in self.values[key].items()
                }
            )
        parts["first_rel_rank"] = obj({s: _json_array(v) for s, v in self.first_rel_rank.items()})
        return obj(parts)


def _nested(data: Mapping[str, Mapping[str, Any]], leaf: Any) -> dict[str, dict[str, Any]]:
    """``{system: {metric: leaf(value)}}``."""
    return {s: {m: leaf(v) for m, v in ms.items()} for s, ms in data.items()}


def rows_to_columns(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """PairedQuery rows (as dicts) in the JSON columns form."""
    out: dict[str, Any] = {
        "query_id": [r.get("query_id") for r in rows],
        "text": [r.get("text") or "" for r in rows],
        "slices": {},
        "values": {},
        "deltas": {},
        "first_rel_rank": {},
    }
    first = rows[0] if rows else {}
    for f in first.get("slices") or {}:
        out["slices"][f] = [(r.get("slices") or {}).get(f) for r in rows]
    for key in _NESTED:
        for s, ms in (first.get(key) or {}).items():
            out[key][s] = {m: [r[key][s].get(m) for r in rows] for m in ms}
    for s in first.get("first_rel_rank") or {}:
        out["first_rel_rank"][s] = [(r.get("first_rel_rank") or {}).get(s) for r in rows]
    return out
