"""The judgment set: queries with metadata, graded judgments, and a content version.

Storage is columnar (pandas) so that sets with hundreds of thousands of
judgments load and evaluate quickly; :meth:`JudgmentSet.query` and
:meth:`JudgmentSet.relevant` give row-wise views for people and tests.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from assay.core.errors import UsageError
from assay.core.hashing import ContentHash
from assay.core.tags import group_by_tags

#: Metadata fields with a documented meaning. Any other column is kept too.
KNOWN_FIELDS = ("language", "query_class", "note", "assessor", "date", "source")
#: Allowed values of the ``source`` field (who produced the label).
LABEL_SOURCES = ("human", "model", "behavior")
#: The expected id that marks a question with no answer.
NO_ANSWER = "NONE"


@dataclass(frozen=True)
class Query:
    """One query of a judgment set (a row-wise view)."""

    query_id: str
    text: str
    no_answer: bool = False
    metadata: Mapping[str, str] = field(default_factory=dict)


class JudgmentSet:
    """Queries and graded judgments, validated, with a content version.

    ``queries`` is a DataFrame indexed by ``query_id`` (str, file order) with
    columns ``text`` (str), ``no_answer`` (bool) and one column per metadata
    field (str or missing). ``qrels`` is a DataFrame with columns ``query_id``,
    ``doc_id`` (str) and ``grade`` (int64; negative: judged non-relevant). Do
    not mutate either; build a new set instead. ``prefer`` is the label source
    that won where a pair had both a human and a model label (``None``: no
    pair had two), a scoring policy every report prints. ``subtopics`` holds the
    judgments per subtopic of TREC diversity qrels (columns ``query_id``,
    ``subtopic``, ``doc_id``, ``grade``; ``qrels`` then holds each document's
    highest grade over the subtopics), ``None`` for every other set: the
    diversity measures then read each query as one subtopic.
    """

    def __init__(
        self,
        queries: pd.DataFrame,
        qrels: pd.DataFrame,
        *,
        name: str = "judgments",
        path: str | None = None,
        format: str = "memory",
        warnings: list[str] | None = None,
        prefer: str | None = None,
        subtopics: pd.DataFrame | None = None,
    ) -> None:
        self.queries = queries
        self.qrels = qrels
        self.name = name
        self.path = path
        self.format = format
        self.warnings = list(warnings or [])
        self.prefer = prefer
        self.subtopics = subtopics

    # ------------------------------------------------------------------ build
    @classmethod
    def from_records(
        cls,
        queries: list[Query] | list[Mapping[str, Any]],
        qrels: Mapping[str, Mapping[str, int]],
        *,
        name: str = "judgments",
    ) -> JudgmentSet:
        """Build a set in memory from queries and ``{query_id: {doc_id: grade}}``.

        Queries may be :class:`Query` objects or dicts with ``query_id``, ``text``
        (or ``query``), optional ``no_answer`` and metadata keys.
        """
        rows = []
        for q in queries:
            if isinstance(q, Query):
                rows.append(
                    {"query_id": q.query_id, "text": q.text, "no_answer": q.no_answer}
                    | dict(q.metadata)
                )
            else:
                d = dict(q)
                text = d.pop("text", None)
                if text is None:
                    text = d.pop("query", "")
                rows.append(
                    {
                        "query_id": str(d.pop("query_id")),
                        "text": text,
                        "no_answer": bool(d.pop("no_answer", False)),
                    }
                    | {k: (None if v is None else str(v)) for k, v in d.items()}
                )
        qframe = pd.DataFrame(rows, columns=None if rows else ["query_id", "text", "no_answer"])
        qframe = qframe.set_index("query_id")
        qrows = [
            (str(qid), str(doc), int(grade))
            for qid, docs in qrels.items()
            for doc, grade in docs.items()
        ]
        rframe = pd.DataFrame(qrows, columns=["query_id", "doc_id", "grade"]).astype(
            {"grade": "int64"}
        )
        return cls(qframe, rframe, name=name)

    # ---------------------------------------------------------------- queries
    def __len__(self) -> int:
        return len(self.queries)

    @property
    def query_ids(self) -> list[str]:
        """All query ids in file order."""
        return self.queries.index.tolist()

    @cached_property
    def answerable_ids(self) -> list[str]:
        """Ids of queries scored by ranking metrics (not no-answer), file order."""
        return self.queries.index[~self.queries["no_answer"].to_numpy(bool)].tolist()

    @cached_property
    def no_answer_ids(self) -> list[str]:
        """Ids of no-answer queries, excluded from ranking metrics."""
        return self.queries.index[self.queries["no_answer"].to_numpy(bool)].tolist()

    @cached_property
    def synthetic_ids(self) -> list[str]:
        """Ids of synthetic (model-written) queries: ``synthetic`` true, as ``assay generate``
        marks them."""
        if "synthetic" not in self.queries.columns:
            return []
        flags = self.queries["synthetic"].astype(str).str.strip().str.lower()
        return self.queries.index[flags.isin(("true", "1", "yes")).to_numpy(bool)].tolist()

    def label_sources(self) -> dict[str, int]:
        """Judgments (query, doc, grade rows) per label source: ``human``, ``model``,
        ``behavior``, or ``unknown`` where the set does not say."""
        if "source" in self.qrels.columns:  # recorded per pair (model and review labels)
            sources = self.qrels["source"].fillna("unknown").astype(str)
        elif "source" in self.queries.columns:
            by_query = self.queries["source"].astype(object).where(self.queries["source"].notna())
            sources = self.qrels["query_id"].map(by_query).fillna("unknown").astype(str)
        else:
            return {"unknown": len(self.qrels)} if len(self.qrels) else {}
        return {k: int(v) for k, v in sorted(sources.value_counts().items())}

    @property
    def metadata_fields(self) -> list[str]:
        """Metadata columns present in this set."""
        return [c for c in self.queries.columns if c not in ("text", "no_answer", "line")]

    def query(self, query_id: str) -> Query:
        """Row-wise view of one query."""
        row = self.queries.loc[query_id]
        meta = {
            k: str(row[k])
            for k in self.metadata_fields
            if row[k] is not None and not (isinstance(row[k], float) and pd.isna(row[k]))
        }
        return Query(query_id, str(row["text"]), bool(row["no_answer"]), meta)

    def __iter__(self) -> Iterator[Query]:
        for qid in self.queries.index:
            yield self.query(qid)

    def relevant(self, query_id: str) -> dict[str, int]:
        """Judgments of one query as ``{doc_id: grade}`` (grade 0 included)."""
        sub = self.qrels[self.qrels["query_id"] == query_id]
        return dict(zip(sub["doc_id"], sub["grade"].astype(int), strict=True))

    def qrels_dict(self) -> dict[str, dict[str, int]]:
        """All judgments as ``{query_id: {doc_id: grade}}`` (pytrec_eval's shape)."""
        out: dict[str, dict[str, int]] = {}
        for q, d, g in zip(
            self.qrels["query_id"], self.qrels["doc_id"], self.qrels["grade"], strict=True
        ):
            out.setdefault(q, {})[d] = int(g)
        return out

    def groups(self, field_name: str) -> dict[str, list[str]]:
        """Map each value of a metadata field to its query ids.

        Values holding several ``;``-separated tags put the query in every tag's
        group. Queries without a value fall in the group ``"(none)"``.
        """
        if field_name not in self.queries.columns:
            raise UsageError(
                f"no metadata field {field_name!r} in {self.name}; "
                f"available: {', '.join(self.metadata_fields) or 'none'}"
            )

        return group_by_tags(self.queries[field_name].items())

    # ---------------------------------------------------------------- version
    @cached_property
    def version(self) -> str:
        """Content hash of the normalised rows: ``sha256:`` and 16 hex digits.

        Independent of file format, row order and metadata column order, so the
        same judgments written as CSV or JSONL have the same version.
        """

        h = ContentHash()
        fields = sorted(self.metadata_fields)
        queries = _by_id(self.queries)
        fast = _query_bytes(queries, fields)
        if fast is not None:
            h.update(fast)
        else:
            for qid, (text, na, *meta) in _fast_rows(queries, fields):
                parts = [qid, text, "1" if na else "0"]
                parts += [f"{f}={m}" for f, m in zip(fields, meta, strict=True) if m]
                h.update("\x1f".join(parts).encode())
                h.update(b"\x1e")
        h.update(b"\x1d")
        r = self.qrels
        for column in _sorted_qrels_columns(r["query_id"], r["doc_id"], r["grade"]):
            h.update(_joined(column, "\x1e"))
            h.update(b"\x1d")
        if self.subtopics is not None:  # the subtopics of diversity qrels are content too
            s = self.subtopics
            keys = s["query_id"].astype(str) + "\x1f" + s["subtopic"].astype(str)
            for column in _sorted_qrels_columns(keys, s["doc_id"], s["grade"]):
                h.update(_joined(column, "\x1e"))
                h.update(b"\x1c")
        return h.version()

    def summary(self) -> dict[str, Any]:
        """Counts shown by ``assay validate``: queries, grades, no-answer, version."""
        grades = self.qrels["grade"].value_counts().sort_index()
        return {
            "name": self.name,
            "path": self.path,
            "format": self.format,
            "version": self.version,
            "queries": len(self.queries),
            "answerable_queries": len(self.answerable_ids),
            "no_answer_queries": len(self.no_answer_ids),
            "judgments": len(self.qrels),
            "judgments_per_grade": {int(g): int(n) for g, n in grades.items()},
            "metadata_fields": self.metadata_fields,
            "warnings": list(self.warnings),
        }

    def __repr__(self) -> str:
        return (
            f"JudgmentSet({self.name!r}, queries={len(self.queries)}, "
            f"judgments={len(self.qrels)}, version={self.version!r})"
        )


def _norm(value: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return str(value)


def _fast_rows(q: pd.DataFrame, fields: list[str]) -> Iterator[tuple[str, tuple]]:
    cols = [q["text"].astype(str).tolist(), q["no_answer"].astype(bool).tolist()]
    cols += [[_norm(v) for v in q[f].tolist()] for f in fields]
    yield from zip(q.index.tolist(), zip(*cols, strict=True), strict=True)


def _arrow_strings(series: Any) -> Any:
    """A pandas column or index of strings as a pyarrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(pa.array(getattr(series, "array", series)), pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError):
        return pa.array(series.astype(str).to_numpy(object), pa.string())


def _joined(column: Any, sep: str) -> bytes:
    """``sep.join(map(str, column)).encode()`` for a pyarrow array, without Python strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(column) == 0:
        return b""
    if not pa.types.is_string(column.type):
        column = pc.cast(column, pa.string())
    if column.null_count:  # pragma: no cover - versions are built from checked columns
        return sep.join(map(str, column.to_pylist())).encode()
    ended = pc.binary_join_element_wise(column, "", sep)  # each value + sep
    return _concatenated(ended)[: -len(sep.encode())]


def _concatenated(strings: Any) -> bytes:
    """The bytes of all values of a pyarrow string array, one after the other."""
    import numpy as np
    import pyarrow as pa

    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    data = strings.buffers()[2]
    if data is None:
        return b""
    return data.to_pybytes()[int(offsets[0]) : int(offsets[-1])]


def _by_id(queries: pd.DataFrame) -> pd.DataFrame:
    """``queries`` in order of their ids, as ``sort_index`` orders them, without the
    lookup table pandas keeps on the index once it has sorted it (a Python string a
    query: 21 MB for 300,000 queries, held as long as the set)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        ids = pa.array(queries.index.array)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return queries.sort_index()
    if not (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)):
        return queries.sort_index()
    order = pc.sort_indices(ids).to_numpy().astype(np.int64)  # uint64: no wrapping diff
    if len(order) and (np.diff(order) > 0).all():
        return queries
    return queries.iloc[order]


def _query_bytes(q: pd.DataFrame, fields: list[str]) -> bytes | None:
    """The query rows of :attr:`JudgmentSet.version`, all at once with pyarrow.

    ``None`` when a value is not a plain string (the row-wise loop handles it).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(q) == 0:
        return b""
    text = q["text"]
    if text.isna().any():
        return None
    try:
        ids = pa.array(q.index.array, pa.string()) if q.index.dtype != object else None
        ids = ids if ids is not None else pa.array(q.index.tolist(), pa.string())
        texts = pa.array(text.array, pa.string()) if text.dtype != object else None
        texts = texts if texts is not None else pa.array(text.tolist(), pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return None
    flags = pa.array(q["no_answer"].astype(bool).to_numpy()).cast(pa.int8()).cast(pa.string())
    parts = [ids, texts, flags]
    for f in fields:
        values = [_norm(v) for v in q[f].tolist()]
        column = pa.array([v if v else None for v in values], pa.string())
        parts.append(pc.binary_join_element_wise(f"{f}=", column, ""))  # null stays null
    rows = pc.binary_join_element_wise(*parts, "\x1f", null_handling="skip")
    return _concatenated(pc.binary_join_element_wise(rows, "", "\x1e"))


def _sorted_qrels_columns(qids: Any, docs: Any, grades: Any) -> tuple[Any, Any, Any]:
    """The three qrels columns as pyarrow arrays, sorted by (query id, doc id) code points."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table({"q": _arrow_strings(qids), "d": _arrow_strings(docs)})
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")])
    return (
        table.column("q").take(order),
        table.column("d").take(order),
        pa.array(grades.to_numpy()).take(order),
    )
