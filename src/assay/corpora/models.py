"""The corpus: documents with ids in file order, their fields, and a content version.

A :class:`Corpus` is what a local system (keyword, BM25, vector) indexes and
what judgments are checked against. Which fields a system reads is part of the
*system's* configuration (``text_fields`` in ``assay.toml``), not of the
corpus version: the version changes only when the records themselves change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

from assay.core.errors import UsageError
from assay.core.hashing import ContentHash


class Corpus:
    """Documents keyed by id, in file order, with default text fields.

    ``records`` are dicts holding the id field and every other field read from
    the file (values as read: text fields are ``str`` or ``None``).
    ``text_fields`` are the fields :meth:`texts` joins by default. Do not mutate
    a corpus; :meth:`select` builds a new one.
    """

    def __init__(
        self,
        ids: Sequence[str],
        records: Sequence[Mapping[str, Any]],
        *,
        id_field: str = "id",
        text_fields: Sequence[str] = (),
        path: str | None = None,
        format: str = "memory",
        name: str | None = None,
    ) -> None:
        if len(ids) != len(records):
            raise UsageError(f"corpus has {len(ids)} ids but {len(records)} records")
        self.ids: list[str] = list(ids)
        self.records: list[dict[str, Any]] = [dict(r) for r in records]
        self.id_field = id_field
        self.text_fields: tuple[str, ...] = tuple(text_fields)
        self.path = path
        self.format = format
        self.name = name or "corpus"
        self._index: dict[str, int] | None = None

    # ------------------------------------------------------------------ build
    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping[str, Any]],
        *,
        id_field: str = "id",
        text_fields: Sequence[str] | None = None,
        name: str = "corpus",
    ) -> Corpus:
        """Build a corpus in memory from dicts that each hold ``id_field``.

        ``text_fields`` defaults to every field other than the id whose values
        are strings. Raises :class:`UsageError` on a missing, empty or
        duplicate id or an unknown text field.
        """
        rows = [dict(r) for r in records]
        ids: list[str] = []
        seen: set[str] = set()
        for number, row in enumerate(rows, start=1):
            value = row.get(id_field)
            if value is None or str(value).strip() == "":
                raise UsageError(f"corpus record {number} has no {id_field!r}")
            doc = str(value)
            if doc in seen:
                raise UsageError(f"corpus record {number}: duplicate id {doc!r}")
            seen.add(doc)
            ids.append(doc)
        fields = list(text_fields) if text_fields is not None else _string_fields(rows, id_field)
        known = {k for r in rows for k in r}
        unknown = [f for f in fields if f not in known]
        if unknown and rows:
            raise UsageError(f"unknown text field(s) {', '.join(unknown)} in corpus {name!r}")
        return cls(ids, rows, id_field=id_field, text_fields=fields, name=name)

    # ---------------------------------------------------------------- access
    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._lookup()

    def _lookup(self) -> dict[str, int]:
        if self._index is None:
            self._index = {doc: i for i, doc in enumerate(self.ids)}
        return self._index

    def ids_set(self) -> frozenset[str]:
        """All document ids, for checking that judged documents exist."""
        return frozenset(self.ids)

    def get(self, doc_id: str) -> dict[str, Any] | None:
        """The record of ``doc_id`` (a copy), or ``None`` when absent."""
        i = self._lookup().get(doc_id)
        return None if i is None else dict(self.records[i])

    @property
    def fields(self) -> list[str]:
        """Every field seen in any record, first-seen order (id field included)."""
        return list(dict.fromkeys(k for r in self.records for k in r))

    def texts(self, fields: Sequence[str] | None = None) -> list[str]:
        """One text per document: the chosen fields joined by a space.

        ``fields`` defaults to :attr:`text_fields`. Missing, null and empty
        values are skipped, so a record with an empty description contributes
        its name only. Raises :class:`UsageError` for a field no record has.
        """
        chosen = tuple(self.text_fields if fields is None else fields)
        self._check_fields(chosen)
        out: list[str] = []
        for record in self.records:
            parts = []
            for f in chosen:
                value = record.get(f)
                if value is None:
                    continue
                text = value if isinstance(value, str) else str(value)
                if text.strip():
                    parts.append(text.strip())
            out.append(" ".join(parts))
        return out

    def select(self, fields: Sequence[str]) -> Corpus:
        """A new corpus whose records keep only the id and ``fields``.

        This is how a deliberately worse configuration is built, e.g. a
        catalog without its long definitions: ``corpus.select(["name"])``.
        """
        chosen = tuple(fields)
        self._check_fields(chosen)
        keep = {self.id_field, *chosen}
        records = [{k: v for k, v in r.items() if k in keep} for r in self.records]
        return Corpus(
            self.ids,
            records,
            id_field=self.id_field,
            text_fields=chosen,
            path=self.path,
            format=self.format,
            name=self.name,
        )

    def _check_fields(self, fields: Sequence[str]) -> None:
        if not self.records:
            return
        known = set(self.fields)
        unknown = [f for f in fields if f not in known]
        if unknown:
            raise UsageError(
                f"unknown text field(s) {', '.join(map(repr, unknown))} in corpus "
                f"{self.path or self.name}; available: {', '.join(self.fields)}"
            )

    # ---------------------------------------------------------------- version
    @cached_property
    def version(self) -> str:
        """Content hash of the normalised records: ``sha256:`` and 16 hex digits.

        Records are hashed in file order with keys sorted, values as text and
        null or empty values dropped, so the same catalog written as CSV or
        JSONL has the same version. The text fields a system reads are not
        part of it (they belong to the system's configuration).
        """

        h = ContentHash()
        for doc, record in zip(self.ids, self.records, strict=True):
            h.update(doc.encode())
            h.update(b"\x1f")
            for key in sorted(record):
                if key == self.id_field:
                    continue
                value = _normal(record[key])
                if value == "":
                    continue
                h.update(f"{key}\x1f{value}\x1f".encode())
            h.update(b"\x1e")
        return h.version()

    def summary(self) -> dict[str, Any]:
        """Counts and settings for reports and sidecars."""
        return {
            "name": self.name,
            "path": self.path,
            "format": self.format,
            "documents": len(self),
            "id_field": self.id_field,
            "text_fields": list(self.text_fields),
            "version": self.version,
        }

    def __repr__(self) -> str:
        return (
            f"Corpus({self.name!r}, documents={len(self)}, "
            f"text_fields={list(self.text_fields)!r}, version={self.version!r})"
        )


def _normal(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict | list) and not value:
        return ""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _string_fields(rows: Sequence[Mapping[str, Any]], id_field: str) -> list[str]:
    """Fields other than the id holding a string in at least one record."""
    return list(
        dict.fromkeys(k for r in rows for k, v in r.items() if k != id_field and isinstance(v, str))
    )
